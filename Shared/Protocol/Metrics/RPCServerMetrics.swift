extension CallMetrics {
    /// A server method's figures: `rpc_server_requests_total{method,code}` and
    /// `rpc_server_request_duration_seconds{method}`; made once, when the method is registered.
    static func rpcServer(method: String) -> CallMetrics {
        CallMetrics(
            countLabel: "rpc_server_requests_total", durationLabel: "rpc_server_request_duration_seconds",
            dimensions: [("method", method)])
    }

    /// Calls of methods the server does not know, under `method="unknown"` so that callers
    /// cannot create new series.
    static let rpcServerUnknownMethod = CallMetrics.rpcServer(method: "unknown")
}
