import CoreMetrics
import MetricsTestKit
import Postgres
import TestSupport
import Testing

/// The pool's gauges follow its connections: open, lent out, and callers waiting.
@Suite struct PoolMetricsTests {
    @Test func gaugesFollowOpenInUseAndWaitingConnections() async throws {
        let metrics = TestMetrics()
        let configuration = PostgresConfiguration(url: try TestDatabase.url(), poolSize: 1)
        let client = withMetricsFactory(metrics) { PostgresClient(configuration: configuration, logger: TestDatabase.logger) }
        func gauge(_ label: String) throws -> Double { try metrics.expectMeter(label).lastValue ?? 0 }

        let waiter = try await client.withConnection { _ in
            #expect(try gauge("postgres_pool_connections") == 1)
            #expect(try gauge("postgres_pool_connections_in_use") == 1)
            let waiter = Task { try await client.ping() }
            try await waitUntil("the waiter is queued") { try gauge("postgres_pool_waiters") >= 1 }
            #expect(try gauge("postgres_pool_waiters") == 1)
            return waiter
        }
        try await waiter.value
        #expect(try gauge("postgres_pool_waiters") == 0)
        #expect(try gauge("postgres_pool_connections_in_use") == 0)
        #expect(try gauge("postgres_pool_connections") == 1)
        await client.shutdown()
        #expect(try gauge("postgres_pool_connections") == 0)
    }
}
