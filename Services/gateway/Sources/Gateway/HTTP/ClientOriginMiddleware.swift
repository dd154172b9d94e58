import Hummingbird

/// Keeps what the end user's address (as the rate limits see it: `X-Forwarded-For` believed
/// only from `TRUSTED_PROXIES`) and user agent are read from in the context, for the calls the
/// audit trail records; they are read only by such a call (`GatewayRequestContext.origin`).
struct ClientOriginMiddleware: RouterMiddleware {
    let clientAddresses: ClientAddressResolver

    func handle(
        _ request: Request, context: GatewayRequestContext, next: (Request, GatewayRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.originSource = (request.headers, context.remoteAddress, self.clientAddresses)
        return try await next(request, context)
    }
}
