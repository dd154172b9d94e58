import CoreMetrics
import Hummingbird
import ServiceProtocol
import Synchronization

/// Counts and times every HTTP request: `http_requests_total{method,route,status}` and
/// `http_request_duration_seconds{method,route}`, where `route` is the matched route pattern
/// (`/api/v1/favorites/{id}`), or `unmatched`, so that request paths cannot create new series.
/// A thrown error is counted with its `HTTPResponseError` status, anything else as 500.
/// The time is the handler's, up to the response head (not the streaming of the body).
public struct HTTPMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    private let metrics = HTTPRouteMetrics()

    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            let status = (error as? any HTTPResponseError)?.status ?? .internalServerError
            self.metrics.record(request.method, route: context.endpointPath, status: status, since: start)
            throw error
        }
        self.metrics.record(request.method, route: context.endpointPath, status: response.status, since: start)
        return response
    }
}

/// The metric objects of each method and route, made on first use.
///
/// A lock, not an actor: every HTTP request finds its route's metrics here (a per-request hot path).
final class HTTPRouteMetrics: Sendable {
    private struct Key: Hashable {
        var method: HTTPRequest.Method
        var route: String
    }

    private struct Route {
        let duration: CoreMetrics.Timer
        var requests: [Int: Counter] = [:]
    }

    private let routes = Mutex<[Key: Route]>([:])

    func record(_ method: HTTPRequest.Method, route: String?, status: HTTPResponse.Status, since start: ContinuousClock.Instant) {
        // Hummingbird names the path of a request no route matched `NotFound`.
        let key = Key(method: method, route: route.flatMap { $0 == "NotFound" ? nil : $0 } ?? "unmatched")
        let (counter, timer) = self.routes.withLock { routes in
            var entry = routes[key] ?? Route(
                duration: CoreMetrics.Timer(
                    label: "http_request_duration_seconds", dimensions: [("method", key.method.rawValue), ("route", key.route)]))
            let counter = entry.requests[status.code] ?? Counter(
                label: "http_requests_total",
                dimensions: [("method", key.method.rawValue), ("route", key.route), ("status", String(status.code))])
            entry.requests[status.code] = counter
            routes[key] = entry
            return (counter, entry.duration)
        }
        counter.increment()
        timer.recordElapsed(since: start)
    }
}
