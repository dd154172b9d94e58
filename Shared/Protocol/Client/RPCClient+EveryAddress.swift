import FoundationEssentials

extension RPCClient {
    /// Calls `method` once on every server address this client has a healthy connection to, all
    /// at once, and returns each address's answer (`host:port` → result or error). For what
    /// each replica holds for itself, such as the keys a `tokens` replica publishes, which the
    /// caller merges. Empty when no connection is healthy. Counted in the client's metrics as
    /// one call per address.
    public func callEveryAddress<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, timeout: Duration? = nil
    ) async -> [String: Swift.Result<Result, RPCError>] {
        let deadline = ContinuousClock.now + (timeout ?? self.configuration.callTimeout)
        let connections = self.state.withLock { state in
            var byAddress: [String: RPCClientConnection] = [:]
            for connection in state.healthy where byAddress[connection.address.description] == nil {
                byAddress[connection.address.description] = connection
            }
            return byAddress
        }
        let metrics = self.metrics.method(method.name)
        return await withTaskGroup(of: (String, Swift.Result<Result, RPCError>).self) { group in
            for (address, connection) in connections {
                group.addTask {
                    let start = ContinuousClock.now
                    do {
                        let result = try await connection.send(
                            method.name, params, as: Result.self, deadline: deadline, requestID: nil)
                        metrics.calls.record(nil, since: start)
                        return (address, .success(result))
                    } catch {
                        let failure = (error as? RPCError)
                            ?? RPCError(.serviceUnavailable, "\(self.configuration.serviceName) at \(address) did not answer \(method.name)", retryable: true)
                        metrics.calls.record(failure.code, since: start)
                        return (address, .failure(failure))
                    }
                }
            }
            return await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
        }
    }
}
