import TextCoding
import TokensAPI
import FoundationEssentials
import Logging
import Redis
import ServiceKit
import Synchronization

/// The Redis copy of revocations: writes a revoked session or a user's not-before with a TTL
/// of the access token lifetime (plus skew), publishes it, and answers whether an access
/// token is revoked. Postgres stays the source of truth: a failed write here makes the
/// reseeder drop the completeness marker and copy everything again.
final class RevocationList: Sendable {
    let redis: RedisClient
    let accessTokenTTL: TimeInterval
    let logger: Logger
    /// Set when a write failed: the copy may be incomplete until the next reseed.
    private let needsReseed = Atomic<Bool>(false)

    init(redis: RedisClient, accessTokenTTL: TimeInterval, logger: Logger) {
        self.redis = redis
        self.accessTokenTTL = accessTokenTTL
        self.logger = logger
    }

    /// One revocation event, as written and published.
    enum Entry: Sendable {
        case session(UUID, userID: UUID, reason: String, revokedAt: Date)
        case user(UUID, notBefore: Date)
    }

    /// Copies `entries` to Redis and publishes each, and counts them. Never throws: on failure the copy is
    /// marked for reseeding (Postgres already holds the revocation).
    func record(_ entries: [Entry], now: Date) async {
        guard !entries.isEmpty else { return }
        TokenMetrics.countRevocations(entries)
        do {
            try await self.write(entries, now: now, publish: true)
        } catch {
            self.needsReseed.store(true, ordering: .relaxed)
            self.logger.error("Cannot copy revocations to Redis; will reseed", metadata: ["error": "\(error)"])
        }
    }

    /// SET with EX for every entry still younger than the access token lifetime.
    func write(_ entries: [Entry], now: Date, publish: Bool) async throws {
        var commands: [[String]] = []
        for entry in entries {
            switch entry {
            case .session(let id, let userID, let reason, let revokedAt):
                let ttl = Int((revokedAt.timeIntervalSince(now) + self.accessTokenTTL + RevocationKeys.skewMargin).rounded(.up))
                guard ttl > 0 else { continue }
                commands.append(["SET", RevocationKeys.session(id), reason, "EX", String(ttl)])
                if publish {
                    commands.append([
                        "PUBLISH", RevocationKeys.channel,
                        #"{"kind":"session","session_id":"\#(id.lowercasedText)","user_id":"\#(userID.lowercasedText)"}"#,
                    ])
                }
            case .user(let id, let notBefore):
                let ttl = Int((notBefore.timeIntervalSince(now) + self.accessTokenTTL + RevocationKeys.skewMargin).rounded(.up))
                guard ttl > 0 else { continue }
                // A not-before is a whole millisecond already; nearest undoes floating-point noise.
                let milliseconds = RevocationKeys.milliseconds(notBefore, rounding: .toNearestOrAwayFromZero)
                let seconds = RevocationKeys.notBeforeValue(milliseconds: milliseconds)
                commands.append(["SET", RevocationKeys.user(id), seconds, "EX", String(ttl)])
                if publish {
                    commands.append([
                        "PUBLISH", RevocationKeys.channel,
                        #"{"kind":"user","user_id":"\#(id.lowercasedText)","not_before":\#(seconds)}"#,
                    ])
                }
            }
        }
        guard !commands.isEmpty else { return }
        for reply in try await self.redis.pipeline(commands) {
            if case .error(let message) = reply { throw RedisError.server(message) }
        }
    }

    /// The answer of the Redis copy for one token: revoked, not revoked, or unknown (marker
    /// missing: the copy is incomplete, ask Postgres).
    enum Answer: Sendable {
        case revoked
        case live
        case unknown
    }

    /// `issuedAtMilliseconds`: the token's `iat_ms` (or `iat` × 1000).
    func check(sessionID: UUID, userID: UUID, issuedAtMilliseconds: Int64) async throws -> Answer {
        let reply = try await self.redis.command(["MGET", RevocationKeys.complete, RevocationKeys.session(sessionID), RevocationKeys.user(userID)])
        guard let values = reply.arrayValue, values.count == 3, !values[0].isNull else { return .unknown }
        if !values[1].isNull { return .revoked }
        if let text = values[2].stringValue, let notBefore = RevocationKeys.notBeforeMilliseconds(text),
            issuedAtMilliseconds < notBefore
        {
            return .revoked
        }
        return .live
    }

    /// True once after a failed write; the reseeder then rebuilds the copy.
    func takeNeedsReseed() -> Bool {
        self.needsReseed.exchange(false, ordering: .relaxed)
    }
}
