import AccountAdministration
import FoundationEssentials
import IdentityAPI
import Logging
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol
import TextCoding
import TokensAPI

/// Deletes guests unused for `GUEST_TTL` with their state, as an account deletion does
/// (DESIGN.md section 9.1). "Unused": created at least that long ago, and no open session
/// refreshed since (tokens' `last_used_at`, which every refresh moves; a guest with no open
/// session can never come back). One gateway of all sweeps at a time (a turn in Redis), every
/// quarter of the TTL (at most hourly); identity deletes only a user that is still a guest, so
/// a guest that signs in during a sweep is kept.
struct GuestReaper: Service {
    let administration: AccountAdministration
    let redis: RedisClient
    /// `GUEST_TTL`, seconds.
    let timeToLive: Int
    let logger: Logger
    /// Pages of 100 guests one sweep reads at most; the next sweep goes on from there.
    var pagesPerSweep = 50
    private let position = SweepPosition()

    init(administration: AccountAdministration, redis: RedisClient, timeToLive: Int, logger: Logger) {
        self.administration = administration
        self.redis = redis
        self.timeToLive = timeToLive
        self.logger = logger
    }

    var interval: Duration { .seconds(max(1, min(self.timeToLive / 4, 3600))) }

    func run() async throws {
        await everyInterval(self.interval, logger: self.logger, failure: "Guest sweep failed") {
            guard try await self.takeTurn() else { return }
            let deleted = try await self.sweep()
            if deleted > 0 { self.logger.info("Unused guests deleted", metadata: ["guests.deleted": "\(deleted)"]) }
        }
    }

    /// Whether this gateway sweeps this interval: the first to set the interval's turn key
    /// does. The key names the TTL too, so that gateways configured alike share turns.
    private func takeTurn(now: Date = Date()) async throws -> Bool {
        let seconds = Int(self.interval.components.seconds)
        let window = Int(now.timeIntervalSince1970) / seconds
        let key = "latchkey:guest-reaper:\(self.timeToLive):\(window)"
        let reply = try await self.redis.command(["SET", key, UUID.random().lowercasedText, "NX", "EX", "\(seconds * 2)"])
        return !reply.isNull
    }

    /// Reads guests older than the TTL from where the last sweep stopped and deletes the unused
    /// ones; returns how many it deleted.
    @discardableResult
    func sweep(now: Date = Date()) async throws -> Int {
        var deleted = 0
        for _ in 0..<self.pagesPerSweep {
            let page = try await self.administration.listUsers(
                ListUsersParams(limit: 100, cursor: await self.position.cursor, guest: true, minAgeSeconds: self.timeToLive))
            for guest in page.users where try await self.isUnused(guest.id, now: now) {
                if try await self.administration.deleteGuest(guest.id) {
                    deleted += 1
                    GuestMetrics.expired.increment()
                }
            }
            await self.position.move(to: page.nextCursor)
            if page.nextCursor == nil { break }
        }
        return deleted
    }

    /// No open session, or none refreshed within the TTL.
    private func isUnused(_ userID: UUID, now: Date) async throws -> Bool {
        let sessions = try await self.administration.tokens.call(
            Tokens.listSessions, ListSessionsParams(userID: userID), options: .init(idempotent: true))
        let cutoff = now.addingTimeInterval(-Double(self.timeToLive))
        return sessions.sessions.allSatisfy { session in (RFC3339.parse(session.lastUsedAt) ?? .distantFuture) < cutoff }
    }
}

/// Where the guest sweep goes on: the cursor of the next page (nil: from the newest). An actor:
/// read and moved once a page, off any request's path.
private actor SweepPosition {
    private(set) var cursor: String?

    func move(to cursor: String?) {
        self.cursor = cursor
    }
}
