import CoreMetrics
import Logging
import MetricsTestKit
import Testing

@testable import ServiceProtocol

/// The server counts and times requests per method and outcome; the client the same per
/// service and method, plus its healthy connections.
@Suite struct RPCMetricsTests {
    @Test func serverAndClientCountCallsByMethodAndCode() async throws {
        let metrics = TestMetrics()
        let router = withMetricsFactory(metrics) { testRouter() }
        try await withServer(router: router) { server in
            let client = withMetricsFactory(metrics) {
                RPCClient(configuration: clientConfiguration(ports: [server.port]), logger: Logger(label: "test.client"))
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await client.run() }
                defer { group.cancelAll() }
                for value in 1...2 {
                    _ = try await client.call("test.echo", Echo(value: value), as: Echo.self)
                }
                await #expect(throws: RPCError.self) { try await client.call("test.fail", ["kind": "not_found"], as: Empty.self) }
                await #expect(throws: RPCError.self) { try await client.call("test.nowhere", Empty(), as: Empty.self) }
                #expect(try metrics.expectMeter("rpc_client_healthy_connections", [("service", "test")]).lastValue ?? 0 >= 1)
            }
        }
        func served(_ method: String, _ code: String) throws -> Int64 {
            try metrics.expectCounter("rpc_server_requests_total", [("method", method), ("code", code)]).totalValue
        }
        #expect(try served("test.echo", "ok") == 2)
        #expect(try served("test.fail", "not_found") == 1)
        #expect(try served("unknown", "method_not_found") == 1)
        #expect(metrics.counters(label: "rpc_server_requests_total").allSatisfy { !$0.dimensions.contains { $0.1 == "test.nowhere" } })
        #expect(try metrics.expectTimer("rpc_server_request_duration_seconds", [("method", "test.echo")]).values.count == 2)

        func called(_ method: String, _ code: String) throws -> Int64 {
            try metrics.expectCounter("rpc_client_calls_total", [("service", "test"), ("method", method), ("code", code)]).totalValue
        }
        #expect(try called("test.echo", "ok") == 2)
        #expect(try called("test.fail", "not_found") == 1)
        #expect(try called("test.nowhere", "method_not_found") == 1)
        #expect(
            try metrics.expectTimer("rpc_client_call_duration_seconds", [("service", "test"), ("method", "test.echo")]).values.count == 2)
    }
}
