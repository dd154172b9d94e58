import CoreMetrics
import FoundationEssentials
import IdentityAPI
import Logging
import Synchronization

/// Users as identity last described them, kept for `USER_CACHE_TTL` seconds so that `me` and
/// refresh do not ask identity (and its Postgres) every time (docs/api.md, "Caches").
///
/// Identity announces every change of a user on `latchkey:users` (`UserChanges`); the message
/// drops that user here, and this gateway drops a user it changed itself as soon as the call
/// returns. The whole cache is dropped and switched off while the subscription is down (messages
/// may be missed then). A read from identity is kept only if nothing was dropped while it ran (the
/// epoch), so a change announced during the read is never papered over by the older answer.
///
/// A lock, not an actor: every `me` reads it, and the Redis reader thread writes it.
final class UserCache: ChannelFedCache {
    struct Entry {
        var user: User
        var lapsesAt: ContinuousClock.Instant
    }

    let timeToLive: Duration
    let capacity: Int
    private let state = Mutex(EpochState<[UUID: Entry]>(empty: [:]))
    private let hits = Counter(label: "gateway_user_cache_lookups_total", dimensions: [("result", "hit")])
    private let misses = Counter(label: "gateway_user_cache_lookups_total", dimensions: [("result", "miss")])

    init(timeToLive: Duration, capacity: Int = 10_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    var isEnabled: Bool { self.state.withLock { $0.enabled } }

    /// The kept user, while its entry has not lapsed.
    func user(_ id: UUID, now: ContinuousClock.Instant = .now) -> User? {
        let user = self.state.withLock { state -> User? in
            guard state.enabled, let entry = state.entries[id] else { return nil }
            guard entry.lapsesAt > now else {
                state.entries[id] = nil
                return nil
            }
            return entry.user
        }
        (user != nil ? self.hits : self.misses).increment()
        return user
    }

    /// Taken before asking identity and handed to `store`; nil while the cache is off.
    func epoch() -> UInt64? {
        self.state.withLock { $0.currentEpoch }
    }

    /// Keeps `user`, unless something was dropped since `epoch` was taken.
    func store(_ user: User, epoch: UInt64, now: ContinuousClock.Instant = .now) {
        let entry = Entry(user: user, lapsesAt: now + self.timeToLive)
        self.state.withLock { state in
            guard state.currentEpoch == epoch else { return }
            if state.entries[user.id] == nil && state.entries.count >= self.capacity { state.drop() }
            state.entries[user.id] = entry
        }
    }

    /// Drops `user` (after this gateway changed them, ahead of identity's message).
    func forget(user: UUID) {
        self.state.withLock { state in
            state.epoch &+= 1
            state.entries[user] = nil
        }
    }

    func forgetAll() {
        self.state.withLock { $0.drop() }
    }

    func setEnabled(_ enabled: Bool) {
        self.state.withLock { $0.drop(enabled: enabled) }
    }

    /// One message of `latchkey:users`: drops the user it names, or everything when it names none.
    func apply(_ payload: String, logger: Logger) {
        if let user = UserChanges.Message.user(in: payload) {
            self.forget(user: user)
        } else {
            logger.warning("Unreadable user change message; dropping the user cache")
            self.forgetAll()
        }
    }
}
