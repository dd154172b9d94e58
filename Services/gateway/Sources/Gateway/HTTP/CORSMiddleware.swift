import Hummingbird

/// CORS for the browser origins in `CORS_ALLOWED_ORIGINS` (`*` allows any): echoes an allowed
/// `Origin`, answers preflight `OPTIONS` with 204. Requests from other origins get no CORS
/// headers (the browser then blocks them); requests without `Origin` are untouched.
struct OriginCORSMiddleware<Context: RequestContext>: RouterMiddleware {
    let allowedOrigins: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], self.allowedOrigins.contains("*") || self.allowedOrigins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var response = Response(status: .noContent)
            self.addHeaders(to: &response, origin: origin)
            response.headers[.accessControlAllowMethods] = "GET, POST, PUT, DELETE, OPTIONS"
            response.headers[.accessControlAllowHeaders] = "Authorization, Content-Type, X-Request-ID"
            response.headers[.accessControlMaxAge] = "600"
            return response
        }
        var response = try await next(request, context)
        self.addHeaders(to: &response, origin: origin)
        return response
    }

    private func addHeaders(to response: inout Response, origin: String) {
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = "X-Request-ID, Retry-After"
        response.headers[.vary] = "Origin"
    }
}
