import CoreMetrics
import Foundation
import MetricsTestKit
import Postgres
import TestSupport
import Testing

/// The pool bounds connections, queues callers in order, and times them out.
@Suite struct PoolTests {
    @Test func fiftyConcurrentQueriesShareAtMostFourConnections() async throws {
        let application = TestDatabase.uniqueName("pool")
        let url = TestDatabase.url(try TestDatabase.url(), adding: "application_name=\(application)")
        try await TestDatabase.withClient(poolSize: 4, url: url) { client in
            let pids = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let rows = try await client.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.005)")
                        return try #require(rows.first).decode("pid", as: Int.self)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(pids.count == 50)
            #expect(Set(pids).count <= 4)
            let sessions = try await client.query(
                "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", [.text(application)])
            #expect(try sessions[0].decode("n", as: Int.self) <= 4)
        }
    }

    @Test func callerBeyondThePoolTimesOutWithPoolTimeout() async throws {
        try await TestDatabase.withClient(poolSize: 1, acquireTimeout: .milliseconds(200)) { client in
            try await client.withConnection { _ in
                let started = ContinuousClock.now
                await #expect(throws: PostgresError.poolTimeout) { try await client.ping() }
                #expect(ContinuousClock.now - started >= .milliseconds(190))
            }
            try await client.ping()
        }
    }

    @Test func waitingCallerGetsTheReleasedConnection() async throws {
        try await TestDatabase.withClient(poolSize: 1) { client in
            let pid = { @Sendable () async throws -> Int in
                try #require(try await client.query("SELECT pg_backend_pid() AS pid").first).decode("pid", as: Int.self)
            }
            let first = try await pid()
            async let waiting = client.withConnection { connection in
                try #require(try await connection.query("SELECT pg_backend_pid() AS pid, pg_sleep(0.1)").first)
                    .decode("pid", as: Int.self)
            }
            let second = try await pid()
            #expect(try await waiting == first)
            #expect(second == first)
        }
    }

    /// The waiter is cancelled once it waits in the queue (the pool's waiter gauge says so),
    /// not after a guessed delay: on a loaded machine it might not have queued yet.
    @Test func cancelledWaiterLeavesTheQueue() async throws {
        let metrics = TestMetrics()
        var configuration = PostgresConfiguration(url: try TestDatabase.url(), poolSize: 1)
        configuration.acquireTimeout = .seconds(30)
        let client = withMetricsFactory(metrics) { PostgresClient(configuration: configuration, logger: TestDatabase.logger) }
        let waiters = { try metrics.expectMeter("postgres_pool_waiters").lastValue ?? 0 }
        try await client.withConnection { _ in
            let waiter = Task { try await client.ping() }
            try await waitUntil("the waiter is queued") { try waiters() == 1 }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(try waiters() == 0, "the cancelled waiter left the queue")
        }
        try await client.ping()
        await client.shutdown()
    }

    @Test func callsAfterShutdownFailWithClientShutDown() async throws {
        var configuration = PostgresConfiguration(url: try TestDatabase.url(), poolSize: 2)
        configuration.acquireTimeout = .seconds(2)
        let client = PostgresClient(configuration: configuration, logger: TestDatabase.logger)
        try await client.ping()
        await client.shutdown()
        await #expect(throws: PostgresError.clientShutDown) { try await client.ping() }
        await client.shutdown()
    }
}
