import Hummingbird

/// Refuses a request whose declared body exceeds `MAX_BODY_BYTES` with 413 before reading it;
/// handlers collect bodies with the same limit, which covers bodies without a length.
struct BodyLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let maxBodyBytes: Int

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > self.maxBodyBytes {
            throw APIError.payloadTooLarge
        }
        return try await next(request, context)
    }
}
