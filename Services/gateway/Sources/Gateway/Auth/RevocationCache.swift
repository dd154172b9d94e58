import CoreMetrics
import FoundationEssentials
import Logging
import Synchronization

/// Live verdicts of the revocation check, kept for a few seconds (`REVOCATION_CACHE_TTL`) so
/// that an app's run of requests reads Redis once (docs/revocation.md, "Channel").
///
/// Only positive answers are kept: a revoked token goes to Redis every time. Every message on
/// `latchkey:revocations` drops what it names, and the whole cache is dropped and switched off
/// while the subscription is down (messages may be missed then) and on `reseeded`. A check
/// that read Redis stores its verdict only if no message arrived while it read (the epoch), so a
/// revocation published during the read is never papered over by the older answer.
///
/// A lock, not an actor: every authenticated request reads it, and the Redis reader thread writes it.
final class RevocationCache: ChannelFedCache {
    /// A session found live, and the oldest `iat` it was found live for: a token of the session
    /// issued at or after that is live too (no session key, and the user's not-before, if any,
    /// is no later); an older one is checked in Redis.
    struct Entry {
        var lapsesAt: ContinuousClock.Instant
        /// Unix milliseconds, as `VerifiedToken.issuedAt`.
        var issuedAt: Int64
    }

    let timeToLive: Duration
    let capacity: Int
    private let state = Mutex(EpochState<[UUID: [UUID: Entry]]>(empty: [:]))
    private let hits = Counter(label: "gateway_revocation_cache_lookups_total", dimensions: [("result", "hit")])
    private let misses = Counter(label: "gateway_revocation_cache_lookups_total", dimensions: [("result", "miss")])

    init(timeToLive: Duration, capacity: Int = 100_000) {
        self.timeToLive = timeToLive
        self.capacity = capacity
    }

    var isEnabled: Bool { self.state.withLock { $0.enabled } }

    /// True when a verdict still in the cache says this token is live.
    func isLive(_ token: VerifiedToken, now: ContinuousClock.Instant = .now) -> Bool {
        let caller = token.caller
        let hit = self.state.withLock { state -> Bool in
            guard state.enabled, let entry = state.entries[caller.userID]?[caller.sessionID] else { return false }
            if entry.lapsesAt <= now {
                state.entries[caller.userID]?[caller.sessionID] = nil
                state.count -= 1
                return false
            }
            return token.issuedAt >= entry.issuedAt
        }
        (hit ? self.hits : self.misses).increment()
        return hit
    }

    /// Taken before reading Redis and handed to `storeLive`; nil while the cache is off.
    func epoch() -> UInt64? {
        self.state.withLock { $0.currentEpoch }
    }

    /// Keeps "live" for the token's session, unless a message arrived since `epoch` was taken.
    func storeLive(_ token: VerifiedToken, epoch: UInt64, now: ContinuousClock.Instant = .now) {
        let caller = token.caller
        let lapsesAt = now + self.timeToLive
        self.state.withLock { state in
            guard state.currentEpoch == epoch else { return }
            if let old = state.entries[caller.userID]?[caller.sessionID] {
                let issuedAt = old.lapsesAt > now ? min(old.issuedAt, token.issuedAt) : token.issuedAt
                state.entries[caller.userID]?[caller.sessionID] = Entry(lapsesAt: lapsesAt, issuedAt: issuedAt)
                return
            }
            if state.count >= self.capacity { state.drop() }
            state.entries[caller.userID, default: [:]][caller.sessionID] = Entry(lapsesAt: lapsesAt, issuedAt: token.issuedAt)
            state.count += 1
        }
    }

    /// Drops every verdict about `user` (after this gateway revoked something of theirs, ahead
    /// of the message).
    func forget(user: UUID) {
        self.state.withLock { state in
            state.epoch &+= 1
            if let sessions = state.entries.removeValue(forKey: user) { state.count -= sessions.count }
        }
    }

    /// Drops every verdict.
    func forgetAll() {
        self.state.withLock { $0.drop() }
    }

    /// Switches the cache on (subscribed) or off (not subscribed); either way it starts empty.
    func setEnabled(_ enabled: Bool) {
        self.state.withLock { $0.drop(enabled: enabled) }
    }

    /// One message of `latchkey:revocations`: drops the user it names (a session message
    /// names its user too), or everything for `reseeded` and anything unreadable.
    func apply(_ payload: String, logger: Logger) {
        struct Message: Decodable {
            var kind: String
            var userID: String?

            enum CodingKeys: String, CodingKey {
                case kind
                case userID = "user_id"
            }
        }
        let message = try? JSONDecoder().decode(Message.self, from: Data(payload.utf8))
        switch message {
        case .some(let message) where message.kind == "session" || message.kind == "user":
            if let user = message.userID.flatMap(UUID.init(uuidString:)) {
                self.forget(user: user)
            } else {
                logger.warning("Revocation message without a user id; dropping the revocation cache")
                self.forgetAll()
            }
        case .some(let message) where message.kind == "reseeded":
            self.forgetAll()
        default:
            logger.warning("Unreadable revocation message; dropping the revocation cache")
            self.forgetAll()
        }
    }
}
