import AuditAPI
import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceProtocol

/// The per-request context: Hummingbird's core, the peer address (for rate limits), and the
/// caller the auth middleware verified.
struct GatewayRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// Set by `AuthMiddleware` on every route that needs a bearer token.
    var caller: Caller?
    /// The thumbprint of the verified DPoP proof's key a sign-in, guest or refresh came with:
    /// the session it opens is bound to it, and a bound session's refresh needs it.
    var deviceKey: String?
    /// What `origin` is read from, kept by `ClientOriginMiddleware` (a reference each, no
    /// parsing): most requests make no audited call and never read it.
    var originSource: (headers: HTTPFields, peer: SocketAddress?, resolver: ClientAddressResolver)?

    /// The end user's address (as the rate limits see it) and user agent, sent on the backend
    /// calls the audit trail records.
    var origin: RPCCallOrigin? {
        guard let source = self.originSource else { return nil }
        let peer = source.peer?.ipAddress.flatMap { IPAddress($0) }
        let client = source.resolver.resolve(peer: peer, forwardedFor: source.headers[values: .xForwardedFor])
        return RPCCallOrigin(
            clientIP: client?.description,
            userAgent: source.headers[.userAgent].map { String($0.prefix(AuditTrailLimits.userAgentLength)) })
    }

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// The verified caller; routes behind `AuthMiddleware` only.
    func requireCaller() throws -> Caller {
        guard let caller else { throw APIError.unauthorized }
        return caller
    }

    /// The request id `RequestIDMiddleware` put in the logger, passed to every backend call.
    var requestID: String? {
        self.logger.requestID
    }
}

/// Whom an access token speaks for.
struct Caller: Sendable {
    var userID: UUID
    var sessionID: UUID
    var isAdmin: Bool
}
