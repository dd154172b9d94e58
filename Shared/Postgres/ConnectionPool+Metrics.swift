import CoreMetrics

/// The pool's gauges: `postgres_pool_connections` (open or opening),
/// `postgres_pool_connections_in_use` (lent out or opening) and `postgres_pool_waiters`.
/// Each pool moves them by its own changes, so several pools in one process add up.
struct PoolGauges {
    private let open = Meter(label: "postgres_pool_connections")
    private let inUse = Meter(label: "postgres_pool_connections_in_use")
    private let waiting = Meter(label: "postgres_pool_waiters")
    private var reported = (open: 0, inUse: 0, waiting: 0)

    mutating func update(open: Int, inUse: Int, waiting: Int) {
        if open != self.reported.open { self.open.increment(by: Double(open - self.reported.open)) }
        if inUse != self.reported.inUse { self.inUse.increment(by: Double(inUse - self.reported.inUse)) }
        if waiting != self.reported.waiting { self.waiting.increment(by: Double(waiting - self.reported.waiting)) }
        self.reported = (open, inUse, waiting)
    }
}

extension ConnectionPool {
    func reportUsage() {
        self.gauges.update(open: self.openCount, inUse: self.openCount - self.idle.count, waiting: self.waiters.count)
    }
}
