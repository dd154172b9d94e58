import TextCoding
import FoundationEssentials
import Hummingbird
import Logging
import ServiceKit
import ServiceProtocol

/// Takes the client's `X-Request-ID` (when it is a sane token) or makes one, keeps it in the
/// context logger's metadata as `request.id` (where handlers take it to pass to the backends,
/// and error bodies to report it), and sets it on the response. Logs one line per request with its status and duration.
/// Hummingbird's own per-request id (`hb.request.id`) is taken out of the logger: a line names
/// its request once, by the id the client and the backends see.
struct RequestIDMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let requestID = request.headers[.requestID].flatMap(Self.sanitized) ?? UUID.random().lowercasedText
        var context = context
        context.logger[metadataKey: "hb.request.id"] = nil
        context.logger.requestID = requestID
        let start = ContinuousClock.now
        do {
            var response = try await next(request, context)
            response.headers[.requestID] = requestID
            self.log(request, status: response.status, since: start, context: context)
            return response
        } catch let error as any HTTPResponseError {
            var response = try error.response(from: request, context: context)
            response.headers[.requestID] = requestID
            self.log(request, status: response.status, since: start, context: context)
            return response
        }
    }

    private func log(_ request: Request, status: HTTPResponse.Status, since start: ContinuousClock.Instant, context: Context) {
        let milliseconds = Int((ContinuousClock.now - start).milliseconds.rounded())
        context.logger.log(
            level: .info, "request",
            fields: [
                "http.method": request.method.rawValue,
                "http.path": context.endpointPath ?? "unmatched",
                "http.status": String(status.code),
                "http.duration_ms": String(milliseconds),
            ])
    }

    /// A client id is kept only if it is 1–128 visible ASCII characters.
    static func sanitized(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count), value.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        return value
    }
}

extension Logger {
    /// The request's id as `RequestIDMiddleware` keeps it in the metadata (`request.id`): what
    /// handlers pass to the backends and error bodies report.
    var requestID: String? {
        get {
            guard case .string(let id)? = self[metadataKey: "request.id"] else { return nil }
            return id
        }
        set { self[metadataKey: "request.id"] = newValue.map { .string($0) } }
    }
}
