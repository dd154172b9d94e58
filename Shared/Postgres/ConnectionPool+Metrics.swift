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
        Self.move(self.open, by: open - self.reported.open)
        Self.move(self.inUse, by: inUse - self.reported.inUse)
        Self.move(self.waiting, by: waiting - self.reported.waiting)
        self.reported = (open, inUse, waiting)
    }

    /// A meter takes positive amounts only: up by an increment, down by a decrement.
    private static func move(_ meter: Meter, by delta: Int) {
        if delta > 0 {
            meter.increment(by: Double(delta))
        } else if delta < 0 {
            meter.decrement(by: Double(-delta))
        }
    }
}
