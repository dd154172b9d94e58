import FoundationEssentials
import Hummingbird
import ServiceProtocol

/// Adds the operations endpoints to `router`:
/// - `GET /healthz`: 200 `{"status":"ok"}` while the process serves at all (liveness);
/// - `GET /readyz`: runs `checks`, 200 `{"status":"ok","checks":{...}}` when all pass, else
///   503 with `"status":"unavailable"` (readiness);
/// - `GET /metrics`: every metric in Prometheus text format (after `MetricsSetup.bootstrap()`).
public func addOperationsRoutes<Context: RequestContext>(to router: Router<Context>, checks: [HealthCheck]) {
    addLivenessRoute(to: router)
    router.get("/readyz") { _, context in
        let result = await HealthCheck.run(checks, logger: context.logger)
        let ready = result.status == "ok"
        return OperationsResponse.json(
            ready ? .ok : .serviceUnavailable, Readiness(status: ready ? "ok" : "unavailable", checks: result.checks))
    }
    router.get("/metrics") { _, _ in
        Response(
            status: .ok, headers: [.contentType: OperationsResponse.prometheusContentType],
            body: .init(byteBuffer: MetricsSetup.exposition()))
    }
}

/// Adds `GET /healthz` alone: what the gateway's public port answers (readiness costs a Redis
/// call and a health call per backend, and metrics show internals: both stay on `OPS_PORT`).
public func addLivenessRoute<Context: RequestContext>(to router: Router<Context>) {
    router.get("/healthz") { _, _ in
        OperationsResponse.json(.ok, Readiness(status: "ok", checks: nil))
    }
}

/// The body of `/healthz` and `/readyz`.
struct Readiness: Encodable {
    var status: String
    var checks: [String: String]?
}

/// Responses of the operations routes, built the same whatever the router's context encodes with.
enum OperationsResponse {
    static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()

    static func json(_ status: HTTPResponse.Status, _ body: Readiness) -> Response {
        let data = (try? self.encoder.encode(body)) ?? Data(#"{"status":"unavailable"}"#.utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
