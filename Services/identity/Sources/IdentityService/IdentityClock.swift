import FoundationEssentials

/// Where the service reads the time, so that tests can move it instead of sleeping.
public struct IdentityClock: Sendable {
    public var now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    public static let system = IdentityClock { Date() }
}
