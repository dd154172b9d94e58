import CoreMetrics
import Synchronization

/// What a client records for the service it calls: `rpc_client_healthy_connections{service}`
/// and, per method, `rpc_client_calls_total{service,method,code}`,
/// `rpc_client_call_duration_seconds{service,method}` and `rpc_client_retries_total{service,method}`,
/// all from the factory in force when the client was made.
///
/// A lock, not an actor: every call looks its method's counters up (a per-request hot path).
final class RPCClientMetrics: Sendable {
    /// The figures of one method, made on its first call.
    final class Method: Sendable {
        let calls: CallMetrics
        let retries: Counter

        init(service: String, method: String, factory: any MetricsFactory) {
            let dimensions = [("service", service), ("method", method)]
            self.calls = CallMetrics(
                countLabel: "rpc_client_calls_total", durationLabel: "rpc_client_call_duration_seconds", dimensions: dimensions,
                factory: factory)
            self.retries = Counter(label: "rpc_client_retries_total", dimensions: dimensions, factory: factory)
        }
    }

    private let service: String
    private let factory: any MetricsFactory
    let healthyConnections: Meter
    private let methods = Mutex<[String: Method]>([:])

    init(service: String, factory: any MetricsFactory = MetricsSystem.factory) {
        self.service = service
        self.factory = factory
        self.healthyConnections = Meter(label: "rpc_client_healthy_connections", dimensions: [("service", service)], factory: factory)
    }

    func method(_ name: String) -> Method {
        self.methods.withLock { methods in
            if let method = methods[name] { return method }
            let method = Method(service: self.service, method: name, factory: self.factory)
            methods[name] = method
            return method
        }
    }
}
