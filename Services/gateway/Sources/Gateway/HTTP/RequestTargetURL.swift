import FoundationEssentials
import Hummingbird
import TextCoding

/// The URL a client called, as a DPoP proof's `htu` must name it (DESIGN.md section 9.2):
/// `PUBLIC_BASE_URL` and the path when it is set; else the request's scheme and `Host`, with
/// `X-Forwarded-Proto` and `X-Forwarded-Host` believed only from `TRUSTED_PROXIES` (the
/// gateway itself speaks plain HTTP).
struct RequestTargetURL: Sendable {
    /// `PUBLIC_BASE_URL` without a trailing `/`.
    let publicBaseURL: String?
    let clientAddresses: ClientAddressResolver

    func url(of request: Request, context: GatewayRequestContext) -> String {
        let path = request.uri.path
        if let publicBaseURL { return publicBaseURL + path }
        var scheme = "http"
        var host = request.head.authority ?? ""
        let peer = context.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        if let peer, self.clientAddresses.isTrusted(peer) {
            if let forwarded = Self.first(request.headers[.xForwardedProto]) { scheme = forwarded }
            if let forwarded = Self.first(request.headers[.xForwardedHost]) { host = forwarded }
        }
        return scheme + "://" + host + path
    }

    /// The first entry of a comma list a proxy may have appended to.
    private static func first(_ value: String?) -> String? {
        guard let entry = value?.split(separator: ",").first?.trimmingWhitespace(), !entry.isEmpty else { return nil }
        return entry
    }
}
