import FoundationEssentials

/// Where the service reads the time: the wall clock in production, a clock the test drives
/// (grace windows, expiry) in tests.
public struct TokenClock: Sendable {
    public var now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    public static let system = TokenClock { Date() }
}
