import NIOPosix

extension NIOThreadPool {
    /// Runs blocking `body` on a pool thread and awaits its result. Unlike `runIfActive`
    /// it ignores task cancellation: once queued, libpq work runs to completion, so a
    /// connection is never left mid-protocol and a `ROLLBACK` after cancellation still runs.
    /// Throws `PostgresError.clientShutDown` if the pool has stopped, unless `evenIfStopped`
    /// (then `body` runs on the calling thread; only for closing connections).
    func runBlocking<T: Sendable>(
        evenIfStopped: Bool = false, _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, Error>) in
            submit { state in
                guard state == .active || evenIfStopped else {
                    continuation.resume(throwing: PostgresError.clientShutDown)
                    return
                }
                continuation.resume(with: Result(catching: body))
            }
        }
    }
}
