import CoreMetrics
import Logging
import MetricsTestKit
import TestSupport
import Testing

@testable import ServiceProtocol

/// Connections that never say `hello` are closed after `helloTimeout`; more than
/// `maximumConnections` at once are refused with `service_unavailable`; both are counted.
@Suite(.serialized) struct ConnectionLimitTests {
    @Test func aConnectionWithoutHelloIsClosedAfterTheTimeout() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            try await withServer(configure: { $0.helloTimeout = .milliseconds(300) }) { server in
                // Told why, then closed. (Connections that say hello in time are every other
                // test's; asserting "in time" here would depend on the machine's speed.)
                let silent = try await RawConnection.connect(port: server.port)
                let reply = try await silent.receive()
                #expect(errorCode(reply) == "unauthenticated")
                #expect(await silent.isClosedByPeer())
            }
        }
        #expect(try metrics.expectCounter("rpc_server_connections_refused_total", [("reason", "hello_timeout")]).totalValue == 1)
    }

    @Test func connectionsOverTheLimitAreRefused() async throws {
        let metrics = TestMetrics()
        try await withMetricsFactory(metrics) {
            try await withServer(configure: { $0.maximumConnections = 2 }) { server in
                let first = try await RawConnection.connect(port: server.port)
                let second = try await RawConnection.connect(port: server.port)
                #expect(try await first.hello()["result"] != nil)
                #expect(try await second.hello()["result"] != nil)
                let third = try await RawConnection.connect(port: server.port)
                #expect(errorCode(try await third.receive()) == "service_unavailable")
                #expect(await third.isClosedByPeer())
                // Once one closes, a new connection is served again.
                first.channel.channel.close(promise: nil)
                try await waitUntil("a connection is accepted again") {
                    let next = try await RawConnection.connect(port: server.port)
                    return (try? await next.hello())?["result"] != nil
                }
            }
        }
        #expect(try metrics.expectCounter("rpc_server_connections_refused_total", [("reason", "too_many_connections")]).totalValue >= 1)
    }
}
