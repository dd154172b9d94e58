extension ConnectionPool {
    /// One task per pool enforces `acquireTimeout`. Every waiter has the same timeout, so
    /// the queue is ordered by deadline and the sweeper only ever sleeps until the head's.
    func startTimeoutSweeperIfNeeded() {
        let start = self.book.withLock { book -> Bool in
            guard !book.sweeping else { return false }
            book.sweeping = true
            return true
        }
        if start {
            Task { await self.sweepExpiredWaiters() }
        }
    }

    private func sweepExpiredWaiters() async {
        while true {
            let head = self.book.withLock { book -> ContinuousClock.Instant? in
                guard book.state == .running, let head = book.waiters.first else {
                    book.sweeping = false
                    return nil
                }
                return head.deadline
            }
            guard let head else { return }
            try? await Task.sleep(until: head, clock: .continuous)
            let now = ContinuousClock.now
            let expired = self.book.withLock { book -> [Waiter] in
                var expired: [Waiter] = []
                while let first = book.waiters.first, first.deadline <= now { expired.append(book.waiters.removeFirst()) }
                book.reportUsage()
                return expired
            }
            for waiter in expired { waiter.continuation.resume(throwing: PostgresError.poolTimeout) }
        }
    }
}
