import Hummingbird
import ServiceProtocol

/// Notes the end user's address (as the rate limits see it: `X-Forwarded-For` believed only
/// from `TRUSTED_PROXIES`) and user agent in the context, for the calls the audit trail records.
struct ClientOriginMiddleware: RouterMiddleware {
    let clientAddresses: ClientAddressResolver

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        let peer = context.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        let client = self.clientAddresses.resolve(peer: peer, forwardedFor: request.headers[values: .xForwardedFor])
        context.origin = RPCCallOrigin(
            clientIP: client?.description, userAgent: request.headers[.userAgent].map { String($0.prefix(256)) })
        return try await next(request, context)
    }
}
