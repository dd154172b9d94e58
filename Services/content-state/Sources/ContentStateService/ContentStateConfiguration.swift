import ContentStateAPI
import ServiceKit

/// The content-state settings (DESIGN.md section 3) besides the common ones.
public struct ContentStateConfiguration: Sendable {
    /// Favoriting beyond this many items is `conflict` (`MAX_FAVORITES_PER_USER`).
    public var maxFavoritesPerUser: Int = 10_000
    /// The most item ids one state query or read batch may carry (`MAX_BATCH`). Capped at
    /// 2,000 so a request and its answer stay well inside the 1 MiB frame.
    public var maxBatch: Int = 500

    public init(maxFavoritesPerUser: Int = 10_000, maxBatch: Int = 500) {
        self.maxFavoritesPerUser = maxFavoritesPerUser
        self.maxBatch = maxBatch
    }

    /// Reads the settings; a bad value names its variable.
    public init(_ env: EnvironmentReader) throws {
        self.maxFavoritesPerUser = try env.int("MAX_FAVORITES_PER_USER", default: 10_000, range: 1...1_000_000)
        self.maxBatch = try env.int("MAX_BATCH", default: 500, range: 1...2_000)
    }
}
