import Logging
import Redis
import ServiceLifecycle

/// A cache whose entries a Redis channel invalidates: usable only while subscribed.
protocol ChannelFedCache: Sendable {
    var isEnabled: Bool { get }
    /// On (subscribed) or off (not subscribed); either way the cache starts empty.
    func setEnabled(_ enabled: Bool)
    /// One message of the channel.
    func apply(_ payload: String, logger: Logger)
}

/// What `RevocationCache` and `UserCache` keep under their lock: the entries, whether the cache
/// is on, and an epoch that every drop advances (a read that raced a drop is not stored).
struct EpochState<Entries: Collection & ExpressibleByDictionaryLiteral> {
    var enabled = false
    var epoch: UInt64 = 0
    var entries: Entries
    /// What the owner counts against its capacity, when that is not `entries.count`.
    var count = 0

    init(empty: Entries) {
        self.entries = empty
    }

    /// The epoch to hand back when storing; nil while off.
    var currentEpoch: UInt64? { self.enabled ? self.epoch : nil }

    mutating func drop(enabled: Bool? = nil) {
        self.epoch &+= 1
        self.entries = [:]
        self.count = 0
        if let enabled { self.enabled = enabled }
    }
}

/// Keeps a `ChannelFedCache` in step with its channel: subscribes (again and again while Redis
/// is down), switches the cache on once subscribed and off whenever the subscription is broken
/// or ends.
struct CacheFeed<Cache: ChannelFedCache>: Service {
    let redis: RedisClient
    let cache: Cache
    let channel: String
    let logger: Logger

    func run() async throws {
        var delay = Duration.milliseconds(200)
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let subscription: RedisSubscription
            do {
                subscription = try await self.redis.subscribe(to: self.channel) { [cache] status in
                    cache.setEnabled(status == .resubscribed)
                }
            } catch {
                self.cache.setEnabled(false)
                self.logger.warning(
                    "Cannot subscribe to a cache's channel; the cache stays off until it can",
                    metadata: ["channel": "\(self.channel)", "error": "\(error)"])
                try? await Task.sleep(for: delay)
                delay = min(delay * 2, .seconds(5))
                continue
            }
            self.cache.setEnabled(true)
            self.logger.debug("Cache on", metadata: ["channel": "\(self.channel)"])
            await withGracefulShutdownHandler {
                for await message in subscription {
                    self.cache.apply(message.payload, logger: self.logger)
                }
            } onGracefulShutdown: {
                subscription.cancel()
            }
            self.cache.setEnabled(false)
            return
        }
    }
}
