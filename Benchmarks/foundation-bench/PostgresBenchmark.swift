import BenchmarkSupport
import Foundation
import Logging
import Postgres

/// Pooled `SELECT 1` at 16 concurrent callers through `PostgresClient`, against `DATABASE_URL`
/// (pool size `BENCH_PG_POOL`, default 8).
func postgresBenchmark(seconds: Int, logger: Logger) async throws -> LatencyStats? {
    guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
        print("DATABASE_URL is not set: skipping the Postgres benchmark (scripts/bench sets it)")
        return nil
    }
    let poolSize = Int(ProcessInfo.processInfo.environment["BENCH_PG_POOL"] ?? "") ?? 8
    let client = PostgresClient(configuration: PostgresConfiguration(url: url, poolSize: poolSize), logger: logger)
    let meter = try await CPUMeter(postgres: client)
    let stats = try await meter.measure("postgres SELECT 1 (pool \(poolSize))", concurrency: 16, duration: .seconds(seconds)) {
        _ = try await client.query("SELECT 1")
    }
    await client.shutdown()
    return stats
}
