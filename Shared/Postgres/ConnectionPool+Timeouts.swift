extension ConnectionPool {
    /// One task per pool enforces `acquireTimeout`. Every waiter has the same timeout, so
    /// the queue is ordered by deadline and the sweeper only ever sleeps until the head's.
    func startTimeoutSweeperIfNeeded() {
        guard timeoutSweeper == nil else { return }
        timeoutSweeper = Task { await self.sweepExpiredWaiters() }
    }

    private func sweepExpiredWaiters() async {
        while state == .running, let head = waiters.first {
            try? await Task.sleep(until: head.deadline, clock: .continuous)
            let now = ContinuousClock.now
            while let first = waiters.first, first.deadline <= now {
                waiters.removeFirst().continuation.resume(throwing: PostgresError.poolTimeout)
            }
        }
        timeoutSweeper = nil
    }
}
