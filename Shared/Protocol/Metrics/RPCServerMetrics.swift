extension CallMetrics {
    /// A server method's figures: `rpc_server_requests_total{method,code}` and
    /// `rpc_server_request_duration_seconds{method}`; made once, when the method is registered.
    static func rpcServer(method: String) -> CallMetrics {
        CallMetrics(
            countLabel: "rpc_server_requests_total", durationLabel: "rpc_server_request_duration_seconds",
            dimensions: [("method", method)])
    }
}
