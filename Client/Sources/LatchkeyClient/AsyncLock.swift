/// A lock for async code: one holder at a time, the others wait in arrival order without
/// blocking a thread. The token stores use it so that a client's read-refresh-write of the
/// tokens is never interleaved with another's.
actor AsyncLock {
    private var held = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Runs `body` while holding the lock.
    func withLock<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        await self.acquire()
        defer { self.release() }
        return try await body()
    }

    private func acquire() async {
        guard self.held else {
            self.held = true
            return
        }
        await withCheckedContinuation { self.waiting.append($0) }
    }

    private func release() {
        if self.waiting.isEmpty {
            self.held = false
        } else {
            // The lock passes straight to the first waiter: `held` stays true.
            self.waiting.removeFirst().resume()
        }
    }
}
