import Logging
import NIOCore
import ServiceLifecycle

extension RPCClient {
    /// Keeps the connections open until cancelled or shut down gracefully.
    public func run() async throws {
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                while !Task.isCancelled && !Task.isShuttingDownGracefully {
                    let addresses = await self.resolveAll()
                    for slot in self.reconcile(addresses) {
                        group.addTask { await self.maintain(slot) }
                    }
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.configuration.resolveInterval) }
                }
                self.stopAll()
            }
        } onGracefulShutdown: {
            self.stopAll()
        }
    }

    /// Runs `body` with a running client, then stops it; for tools, tests and other services'
    /// short jobs. Without a logger, the client logs as `rpc-client.<service>`.
    public static func withClient<T: Sendable>(
        configuration: Configuration, logger: Logger? = nil, _ body: (RPCClient) async throws -> T
    ) async throws -> T {
        let client = RPCClient(configuration: configuration, logger: logger ?? Logger(label: "rpc-client.\(configuration.serviceName)"))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Every address of every endpoint. A name that fails to resolve keeps its last addresses.
    func resolveAll() async -> [String: SocketAddress] {
        var result: [String: SocketAddress] = [:]
        for endpoint in self.configuration.endpoints {
            do {
                for address in try await AddressResolver.resolve(endpoint) {
                    result[address.description] = address
                }
            } catch {
                self.logger.warning("Cannot resolve endpoint", metadata: ["rpc.endpoint": "\(endpoint)"])
                let previous = self.state.withLock { $0.addresses }
                for (key, address) in previous where address.port == endpoint.port {
                    result[key] = address
                }
            }
        }
        return result
    }

    /// Makes the wanted slots match the addresses; returns the slots that need a new task and
    /// closes the connections of addresses that are gone.
    func reconcile(_ addresses: [String: SocketAddress]) -> [Slot] {
        self.state.withLock { state in
            state.addresses = addresses
            var wanted: Set<Slot> = []
            for key in addresses.keys {
                for index in 0..<self.slotsPerAddress {
                    wanted.insert(Slot(address: key, index: index))
                }
            }
            for slot in state.wanted.subtracting(wanted) {
                state.live[slot]?.close()
            }
            let added = wanted.subtracting(state.wanted)
            state.wanted = wanted
            return Array(added)
        }
    }

    func stopAll() {
        self.state.withLock { state in
            state.wanted = []
            for connection in state.live.values { connection.close() }
        }
    }

    /// Keeps one slot's connection open while the slot is wanted, with exponential backoff
    /// (and jitter) between failed attempts.
    func maintain(_ slot: Slot) async {
        var failures = 0
        while let address = self.state.withLock({ $0.wanted.contains(slot) ? $0.addresses[slot.address] : nil }) {
            do {
                let connection = try await RPCClientConnection.connect(
                    to: address, configuration: self.configuration, eventLoop: self.eventLoop(for: slot))
                if failures > 0 {
                    self.logger.info("Reconnected", metadata: ["rpc.address": "\(slot.address)"])
                }
                failures = 0
                guard self.register(connection, for: slot) else {
                    connection.close()
                    return
                }
                await withTaskCancellationHandler {
                    try? await connection.channel.closeFuture.get()
                } onCancel: {
                    connection.close()
                }
                self.unregister(connection, for: slot)
            } catch let error as RPCError where error.code == .unauthenticated {
                if failures == 0 {
                    self.logger.error("The service refused our SERVICE_TOKEN", metadata: ["rpc.address": "\(slot.address)"])
                }
                failures += 1
            } catch {
                if failures == 0 {
                    self.logger.warning("Cannot connect", metadata: ["rpc.address": "\(slot.address)", "error": "\(error)"])
                }
                failures += 1
            }
            guard !Task.isCancelled else { return }
            let delay = self.backoff(afterFailures: failures)
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
        }
    }

    /// The event loop of a slot's connection: the slots of an address go round the loops, so
    /// that with a connection per loop a call finds one on the loop it runs on.
    func eventLoop(for slot: Slot) -> any EventLoop {
        self.eventLoops[slot.index % self.eventLoops.count]
    }

    private func register(_ connection: RPCClientConnection, for slot: Slot) -> Bool {
        let (registered, waiters) = self.state.withLock { state in
            guard state.wanted.contains(slot) else { return (false, [CheckedContinuation<Void, Never>]()) }
            state.live[slot] = connection
            state.healthy.append(connection)
            self.metrics.healthyConnections.increment()
            var parked: [CheckedContinuation<Void, Never>] = []
            for (id, waiter) in state.waiters {
                guard case .waiting(let continuation) = waiter else { continue }
                parked.append(continuation)
                state.waiters[id] = .expired
            }
            return (true, parked)
        }
        // Calls that waited for a healthy connection go on now.
        for waiter in waiters { waiter.resume() }
        return registered
    }

    private func unregister(_ connection: RPCClientConnection, for slot: Slot) {
        self.state.withLock { state in
            let before = state.healthy.count
            state.healthy.removeAll { $0 === connection }
            self.metrics.healthyConnections.decrement(by: Double(before - state.healthy.count))
            if state.live[slot] === connection { state.live[slot] = nil }
        }
    }

    func backoff(afterFailures failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        let base = self.configuration.minimumBackoff * (1 << min(failures - 1, 16))
        let capped = min(base, self.configuration.maximumBackoff)
        return capped * Double.random(in: 0.5...1.0)
    }
}
