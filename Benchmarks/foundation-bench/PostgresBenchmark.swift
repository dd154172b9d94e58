import Logging

/// Pooled `SELECT 1` at 16 concurrent callers, when `DATABASE_URL` is set.
func postgresBenchmark(seconds: Int, logger: Logger) async throws -> LatencyStats? {
    nil
}
