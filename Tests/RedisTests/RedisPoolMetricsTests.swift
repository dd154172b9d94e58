import CoreMetrics
import MetricsTestKit
import Redis
import Testing

/// The pool's gauges: connections open, in use, and jobs waiting for a thread.
@Suite struct RedisPoolMetricsTests {
    @Test func gaugesCountOpenConnectionsAndReturnToIdle() async throws {
        let metrics = TestMetrics()
        let configuration = RedisConfiguration(url: try TestRedis.url(), poolSize: 2)
        let client = withMetricsFactory(metrics) { RedisClient(configuration: configuration, logger: TestRedis.logger) }
        func gauge(_ label: String) throws -> Double { try metrics.expectMeter(label).lastValue ?? 0 }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 { group.addTask { try await client.ping() } }
            try await group.waitForAll()
        }
        #expect(try (1...2).contains(gauge("redis_pool_connections")))
        #expect(try metrics.expectMeter("redis_pool_connections_in_use").values.contains(1))
        #expect(try gauge("redis_pool_connections_in_use") == 0)
        #expect(try gauge("redis_pool_waiters") == 0)
        await client.shutdown()
        #expect(try gauge("redis_pool_connections") == 0)
    }
}
