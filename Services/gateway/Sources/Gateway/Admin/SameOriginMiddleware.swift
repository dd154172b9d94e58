import HTTPTypes
import Hummingbird

/// Refuses a state-changing admin request that a browser says comes from another site
/// (CSRF), besides the `SameSite=Strict` cookie: `Sec-Fetch-Site` must be `same-origin` (or
/// `none`, typed by the user), else `Origin` must name this host. A request with neither header
/// is not a browser's (curl, scripts) and cannot carry a victim's cookie unknowingly: it passes.
struct SameOriginMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isSafe(request.method) || Self.isSameOrigin(request.headers, authority: request.head.authority) else {
            context.logger.warning("Cross-origin admin request refused")
            throw APIError(.forbidden, .forbidden, "Cross-origin requests to the admin surface are refused")
        }
        return try await next(request, context)
    }

    static func isSafe(_ method: HTTPRequest.Method) -> Bool {
        method == .get || method == .head || method == .options
    }

    /// `authority`: the `Host` the browser sent the request to.
    static func isSameOrigin(_ headers: HTTPFields, authority: String?) -> Bool {
        if let site = headers[.secFetchSite] {
            return site == "same-origin" || site == "none"
        }
        guard let origin = headers[.origin] else { return true }
        // `Origin: scheme://host[:port]` against the `Host` the browser sent it to.
        guard let host = authority, let schemeEnd = origin.firstRange(of: "://") else { return false }
        return origin[schemeEnd.upperBound...].lowercased() == host.lowercased()
    }
}

extension HTTPField.Name {
    static let secFetchSite = Self("Sec-Fetch-Site")!
}
