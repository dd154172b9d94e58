import CoreMetrics

extension CallMetrics {
    /// A server method's figures: `rpc_server_requests_total{method,code}` and
    /// `rpc_server_request_duration_seconds{method}`; made once, when the method is registered.
    static func rpcServer(method: String) -> CallMetrics {
        CallMetrics(
            countLabel: "rpc_server_requests_total", durationLabel: "rpc_server_request_duration_seconds",
            dimensions: [("method", method)])
    }
}

/// Connections a server closed before serving them: `rpc_server_connections_refused_total{reason}`,
/// `reason` `hello_timeout` (no good `hello` in time) or `too_many_connections`. Made with the
/// server, so that they come from the metrics factory in force then.
struct RPCConnectionRefusals: Sendable {
    let helloTimeout = Counter(label: "rpc_server_connections_refused_total", dimensions: [("reason", "hello_timeout")])
    let tooManyConnections = Counter(label: "rpc_server_connections_refused_total", dimensions: [("reason", "too_many_connections")])
}
