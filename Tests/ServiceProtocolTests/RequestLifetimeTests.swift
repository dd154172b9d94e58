import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import NIOCore
import Synchronization
import TestSupport
import Testing

@testable import ServiceProtocol

/// How long the work of a call lives, on both sides: a server request no longer outlives its
/// connection, and a client call waiting for a connection is woken by it (or by its own
/// cancellation), not by a timer it checks.
@Suite(.timeLimit(.minutes(2))) struct RequestLifetimeTests {
    @Test func aRequestIsCancelledWhenItsConnectionCloses() async throws {
        let events = Mutex<[String]>([])
        var router = testRouter()
        router.register("test.hold") { (_: Echo, _) -> Echo in
            events.withLock { $0.append("started") }
            do {
                try await Task.sleep(for: .seconds(600))
            } catch {
                events.withLock { $0.append(Task.isCancelled ? "cancelled" : "failed") }
                throw error
            }
            return Echo(value: 0)
        }
        try await withServer(router: router) { server in
            var connection: RawConnection? = try await RawConnection.connect(port: server.port)
            _ = try await connection?.hello()
            try await connection?.send(#"{"v":1,"id":2,"method":"test.hold","params":{"value":1}}"#)
            try await waitUntil("the request started") { events.withLock { $0 == ["started"] } }
            // The peer goes away (a reset: a half-close only says it sends no more, and still
            // wants its responses).
            let provider = try #require(connection?.channel.channel as? any SocketOptionProvider)
            try await provider.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
            connection = nil  // closes the channel
            try await waitUntil("the request sees its connection close") { events.withLock { $0.count == 2 } }
            #expect(events.withLock { $0 } == ["started", "cancelled"])
        }
    }

    @Test func aCallWaitingForItsFirstConnectionGoesOnWhenTheServerComes() async throws {
        let port = try freePort()
        let configuration = clientConfiguration(ports: [port])
        try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
            let call = Task { try await client.call("test.echo", Echo(value: 7), as: Echo.self) }
            try await withRetriedBind {
                try await withServer(configure: { $0.port = port }) { _ in
                    let echo = try await withDeadline("the waiting call is answered") { try await call.value }
                    #expect(echo.value == 7)
                }
            }
        }
    }

    @Test func aWaitingCallEndsAtOnceWhenCancelled() async throws {
        let configuration = clientConfiguration(ports: [try freePort()])  // nothing listens there
        try await RPCClient.withClient(configuration: configuration, logger: .init(label: "t")) { client in
            let call = Task { try await client.call("test.echo", Echo(value: 1), as: Echo.self) }
            try await Task.sleep(for: .milliseconds(50))
            call.cancel()
            // The call's timeout is 90 s: it ends long before because it was woken.
            let outcome = try await withDeadline("the cancelled call ends", timeout: .seconds(30)) {
                await call.result
            }
            #expect(throws: (any Error).self) { try outcome.get() }
        }
    }
}
