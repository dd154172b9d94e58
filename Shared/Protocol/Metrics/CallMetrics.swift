import CoreMetrics
import Synchronization

/// The figures of one kind of call: a counter per outcome (`code="ok"` or the error code)
/// and a latency histogram. The `ok` counter and the timer are made up front and error
/// counters on first use, so recording costs no factory lookup. All of them come from the
/// factory in force when it is made (`withMetricsFactory` in tests).
///
/// A lock, not an actor: every failed call finds its counter here (a per-request path, no hop wanted).
final class CallMetrics: Sendable {
    private let factory: any MetricsFactory
    private let countLabel: String
    private let dimensions: [(String, String)]
    private let succeeded: Counter
    private let failed = Mutex<[ErrorCode: Counter]>([:])
    private let duration: Timer

    init(countLabel: String, durationLabel: String, dimensions: [(String, String)], factory: any MetricsFactory = MetricsSystem.factory) {
        self.factory = factory
        self.countLabel = countLabel
        self.dimensions = dimensions
        self.succeeded = Counter(label: countLabel, dimensions: dimensions + [("code", "ok")], factory: factory)
        self.duration = Timer(label: durationLabel, dimensions: dimensions, factory: factory)
    }

    /// Records one call that started at `start` and ended with `code` (nil: succeeded).
    func record(_ code: ErrorCode?, since start: ContinuousClock.Instant) {
        self.counter(code).increment()
        self.duration.recordElapsed(since: start)
    }

    private func counter(_ code: ErrorCode?) -> Counter {
        guard let code else { return self.succeeded }
        return self.failed.withLock { counters in
            if let counter = counters[code] { return counter }
            let counter = Counter(label: self.countLabel, dimensions: self.dimensions + [("code", code.rawValue)], factory: self.factory)
            counters[code] = counter
            return counter
        }
    }
}

extension CoreMetrics.Timer {
    /// Records the time passed since `start`.
    public func recordElapsed(since start: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        self.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
