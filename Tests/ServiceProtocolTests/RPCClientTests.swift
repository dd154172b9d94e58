import Foundation
import Logging
import NIOCore
import NIOPosix
import Synchronization
import TestSupport
import Testing

@testable import ServiceProtocol

@Suite struct RPCClientTests {
    @Test func hundredConcurrentCallsOnOneConnectionAreMatchedOutOfOrder() async throws {
        let completionOrder = Recorder()
        try await withServer { server in
            var configuration = clientConfiguration(ports: [server.port])
            configuration.connectionsPerAddress = 1
            try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for value in 0..<100 {
                        group.addTask {
                            // Later requests answer sooner, so responses come back in reverse.
                            let echo = try await client.call("test.echo", Echo(value: value, delayMs: (100 - value) * 3), as: Echo.self)
                            #expect(echo.value == value)
                            await completionOrder.append(echo.value)
                        }
                    }
                    try await group.waitForAll()
                }
                #expect(client.healthyConnectionCount == 1)
            }
        }
        let order = await completionOrder.values
        #expect(order.count == 100)
        #expect(Set(order) == Set(0..<100))
        #expect(order != order.sorted(), "responses should complete out of request order")
    }

    /// A server that vanished without closing (its network gone with it) acknowledges nothing:
    /// the kernel drops the connection after `unacknowledgedTimeout` (`TCP_USER_TIMEOUT`). This
    /// checks the option on a real connection; compose-check kills a replica for the behaviour.
    @Test func connectionsCarryTheUnacknowledgedTimeout() async throws {
        try await withServer { server in
            var configuration = clientConfiguration(ports: [server.port])
            configuration.unacknowledgedTimeout = .milliseconds(1500)
            let connection = try await RPCClientConnection.connect(
                to: try SocketAddress(ipAddress: "127.0.0.1", port: server.port), configuration: configuration,
                eventLoop: MultiThreadedEventLoopGroup.singleton.next())
            let milliseconds = try await connection.channel.getOption(RPCClientConnection.unacknowledgedTimeoutOption).get()
            try await connection.channel.close()
            #expect(milliseconds == 1500)
            #expect(RPCClient.Configuration(endpoints: [], serviceName: "s", callerName: "c", serviceToken: "t").unacknowledgedTimeout == .seconds(2))
        }
    }

    @Test func callsSucceedWithOneOfTwoEndpointsDown() async throws {
        // A port with nothing listening stands for the endpoint that is down.
        let downPort = try await withServer { $0.port }
        try await withServer { server in
            let configuration = clientConfiguration(ports: [downPort, server.port])
            try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
                for value in 0..<50 {
                    let echo = try await client.call("test.echo", Echo(value: value), as: Echo.self)
                    #expect(echo.value == value)
                }
            }
        }
    }

    @Test func idempotentCallsMoveToTheOtherEndpointWhenOneStops() async throws {
        try await withServer { survivor in
            try await withThrowingTaskGroup(of: Void.self) { group in
                var configuration = RPCServer.Configuration(serviceName: "test", serviceToken: testToken)
                configuration.port = 0
                let victim = try await RPCServer.bind(configuration: configuration, router: testRouter(), logger: Logger(label: "victim"))
                group.addTask { try await victim.run() }
                let clientConfiguration = clientConfiguration(ports: [victim.port, survivor.port])
                try await RPCClient.withClient(configuration: clientConfiguration, logger: .init(label: "t")) { client in
                    try await waitUntil("four healthy connections") { client.healthyConnectionCount >= 4 }
                    victim.shutdown()
                    group.cancelAll()
                    let options = RPCClient.CallOptions(idempotent: true)
                    for value in 0..<50 {
                        #expect(try await client.call("test.echo", Echo(value: value), as: Echo.self, options: options).value == value)
                    }
                }
            }
        }
    }

    @Test func onlyIdempotentCallsAreRetriedWhenTheServerDiesMidCall() async throws {
        /// The survivor answers at once; the victim holds each call until the test opens the
        /// gate, so the calls are surely in flight there when it dies, however slow the machine.
        func router(_ name: String, gate: CallGate?) -> RPCRouter {
            var router = RPCRouter()
            router.register("test.where") { (_: Empty, _) -> String in
                if let gate { try await gate.pass() }
                return name
            }
            return router
        }
        for idempotent in [false, true] {
            let gate = CallGate()
            try await withServer(router: router("survivor", gate: nil)) { survivor in
                try await withThrowingTaskGroup(of: Void.self) { servers in
                    let victim = try await RPCServer.bind(
                        configuration: .init(serviceName: "victim", serviceToken: testToken),
                        router: router("victim", gate: gate), logger: Logger(label: "victim"))
                    servers.addTask { try await victim.run() }
                    let configuration = clientConfiguration(ports: [victim.port, survivor.port])
                    try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
                        try await waitUntil("four healthy connections") { client.healthyConnectionCount >= 4 }
                        // Round robin puts two of the four calls on the victim's two connections.
                        let outcomes = try await withThrowingTaskGroup(of: String.self) { calls in
                            for _ in 0..<4 {
                                calls.addTask {
                                    do {
                                        return try await client.call(
                                            "test.where", Empty(), as: String.self, options: .init(idempotent: idempotent))
                                    } catch let error as RPCError {
                                        return error.code.rawValue
                                    }
                                }
                            }
                            try await waitUntil("two calls held by the victim") { gate.arrivals >= 2 }
                            servers.cancelAll()  // the victim drops its connections with the calls in flight
                            var outcomes: [String] = []
                            for try await outcome in calls { outcomes.append(outcome) }
                            return outcomes.sorted()
                        }
                        gate.open()
                        if idempotent {
                            #expect(outcomes == ["survivor", "survivor", "survivor", "survivor"])
                        } else {
                            #expect(outcomes == ["service_unavailable", "service_unavailable", "survivor", "survivor"])
                        }
                    }
                }
            }
        }
    }

    @Test func deadlineExpiresWhenTheServerIsSlow() async throws {
        try await withServer { server in
            try await RPCClient.withClient(configuration: clientConfiguration(ports: [server.port]), logger: .init(label: "t")) { client in
                try await waitUntil("a healthy connection") { client.healthyConnectionCount > 0 }
                let start = ContinuousClock.now
                let error = await #expect(throws: RPCError.self) {
                    try await client.call(
                        "test.echo", Echo(value: 1, delayMs: 20_000), as: Echo.self,
                        options: .init(timeout: .milliseconds(100)))
                }
                #expect(error?.code == .deadlineExceeded)
                // Well before the server's answer (the bound is loose: a loaded machine takes seconds
                // for what takes milliseconds when idle).
                #expect(ContinuousClock.now - start < .seconds(15))
                // The connection is still usable afterwards.
                let echo = try await client.call("test.echo", Echo(value: 2), as: Echo.self)
                #expect(echo.value == 2)
            }
        }
    }

    /// Calls in flight with deadlines in any order: each short one fails at its deadline, though
    /// a later one was sent first, and a long one still gets its answer after them.
    @Test func callsWithMixedDeadlinesEachExpireOnTimeAndTheLongOneIsAnswered() async throws {
        try await withServer { server in
            try await RPCClient.withClient(configuration: clientConfiguration(ports: [server.port]), logger: .init(label: "t")) { client in
                try await waitUntil("a healthy connection") { client.healthyConnectionCount > 0 }
                let start = ContinuousClock.now
                async let long = client.call(
                    "test.echo", Echo(value: 1, delayMs: 1_500), as: Echo.self, options: .init(timeout: .seconds(60)))
                func expires(after timeout: Duration) async -> (ErrorCode?, Duration) {
                    do {
                        _ = try await client.call(
                            "test.echo", Echo(value: 2, delayMs: 20_000), as: Echo.self, options: .init(timeout: timeout))
                        return (nil, ContinuousClock.now - start)
                    } catch let error as RPCError {
                        return (error.code, ContinuousClock.now - start)
                    } catch {
                        return (nil, ContinuousClock.now - start)
                    }
                }
                async let short = expires(after: .milliseconds(100))
                async let shorter = expires(after: .milliseconds(50))
                let (first, second) = await (short, shorter)
                #expect(first.0 == .deadlineExceeded)
                #expect(second.0 == .deadlineExceeded)
                let echo = try await long
                let answered = ContinuousClock.now - start
                #expect(echo.value == 1)
                // Both short calls failed before the long one's answer (1.5 s), not with it.
                #expect(first.1 < answered && second.1 < answered)
                // A call after them expires too: the timer is set again.
                #expect(await expires(after: .milliseconds(50)).0 == .deadlineExceeded)
            }
        }
    }

    @Test func wrongTokenMeansNoHealthyConnectionAndServiceUnavailable() async throws {
        try await withServer { server in
            let configuration = clientConfiguration(ports: [server.port], token: "not-the-token")
            try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
                let error = await #expect(throws: RPCError.self) {
                    try await client.call("test.echo", Echo(value: 1), as: Echo.self, options: .init(timeout: .milliseconds(300)))
                }
                #expect(error?.code == .serviceUnavailable)
                #expect(client.healthyConnectionCount == 0)
            }
        }
    }

    @Test func clientReconnectsWhenTheServerComesBack() async throws {
        // The client starts while nothing listens on the port, then a server binds it. A port
        // below the ephemeral range, so no client socket holds it; should something else on the
        // machine take it in between all the same, the test moves to another port.
        var answered = false
        for candidate in (20_000..<32_000).shuffled().prefix(5) where !answered {
            let configuration = clientConfiguration(ports: [candidate])
            do {
                try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
                    try await withRetriedBind {
                        try await withServer(configure: { $0.port = candidate }) { _ in
                            let echo = try await client.call("test.echo", Echo(value: 3), as: Echo.self)
                            #expect(echo.value == 3)
                            answered = true
                        }
                    }
                }
            } catch let error as IOError where error.errnoCode == EADDRINUSE {
                continue
            }
        }
        #expect(answered)
    }

    @Test func aCallMadeOnAnEventLoopTakesTheConnectionOnThatLoop() async throws {
        let loops = MultiThreadedEventLoopGroup(numberOfThreads: 3)
        try await withServer { server in
            let client = RPCClient(
                configuration: clientConfiguration(ports: [server.port]), logger: .init(label: "t"), eventLoopGroup: loops)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.run() }
                defer { group.cancelAll() }
                // By default one connection per loop (at least two).
                try await waitUntil("a connection per loop") { client.healthyConnectionCount == 3 }
                for loop in loops.makeIterator() {
                    for _ in 0..<4 {
                        let picked = try await loop.submit { () -> (any EventLoop)? in
                            guard case .connection(let connection) = client.pick(excluding: []) else { return nil }
                            return connection.channel.eventLoop
                        }.get()
                        #expect(picked === loop)
                    }
                }
                // Off the loops, picks go round all the connections.
                var seen = Set<ObjectIdentifier>()
                for _ in 0..<3 {
                    if case .connection(let connection) = client.pick(excluding: []) { seen.insert(ObjectIdentifier(connection)) }
                }
                #expect(seen.count == 3)
                // A call begun on a loop is answered.
                let echo = try await loops.next().makeFutureWithTask {
                    try await client.call("test.echo", Echo(value: 7), as: Echo.self)
                }.get()
                #expect(echo.value == 7)
            }
        }
        try await loops.shutdownGracefully()
    }
}

/// Holds the calls of a handler until `open()`, counting those that arrived.
final class CallGate: Sendable {
    private let state = Mutex<(arrivals: Int, isOpen: Bool)>((0, false))

    var arrivals: Int { self.state.withLock { $0.arrivals } }

    func open() { self.state.withLock { $0.isOpen = true } }

    /// Counts the caller in, then waits until the gate opens (or the task is cancelled).
    func pass() async throws {
        self.state.withLock { $0.arrivals += 1 }
        while !self.state.withLock({ $0.isOpen }) { try await Task.sleep(for: .milliseconds(5)) }
    }
}

/// Collects values from concurrent tasks in the order they arrive.
actor Recorder {
    private(set) var values: [Int] = []
    func append(_ value: Int) { self.values.append(value) }
}

/// Runs `body` again while binding fails with "address in use" (a test running in parallel
/// may hold the port for a moment), for at most two seconds.
func withRetriedBind(_ body: () async throws -> Void) async throws {
    let deadline = ContinuousClock.now + .seconds(2)
    while true {
        do {
            return try await body()
        } catch let error as IOError where error.errnoCode == EADDRINUSE && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}
