import FoundationEssentials
import HTTPTypes
import Redis

/// The failed admin logins all clients together may make per hour
/// (`ADMIN_LOGIN_FAILURE_BUDGET`, 100; 0 turns it off), besides the per-IP limit: a password
/// guessed from many addresses at once (a botnet, or one IPv6 subscriber's /64) stops at the
/// budget. Once it is spent every login is 429 until the hour ends, the right password too:
/// the console is locked rather than guessed. Counted in Redis, shared by every gateway; when
/// Redis does not answer, login fails closed (503).
struct AdminLoginBudget: Sendable {
    let redis: RedisClient
    let failuresPerHour: Int

    private func key(_ window: Int) -> String { "latchkey:admin:login_failures:\(window)" }

    /// Takes one attempt from the hour's budget before the password is checked (so that
    /// guesses arriving together cannot each read the budget open and overshoot it): 429 when
    /// it is spent, 503 when Redis cannot tell. A right password gives the attempt back
    /// (`refund`); a wrong one keeps it spent.
    func reserve(now: Date = Date()) async throws {
        guard self.failuresPerHour > 0 else { return }
        let (window, retryAfter) = Self.window(now)
        let spent: Int
        do {
            let replies = try await self.redis.pipeline([["INCR", self.key(window)], ["EXPIRE", self.key(window), "3601"]])
            guard let count = replies.first?.intValue else { throw RedisError.protocolError("INCR reply") }
            spent = count
        } catch {
            throw APIError.adminLoginUnavailable
        }
        guard spent <= self.failuresPerHour else {
            throw APIError(
                .tooManyRequests, .rateLimited, "Too many failed admin logins, please retry in \(retryAfter) seconds",
                headers: [.retryAfter: "\(retryAfter)"])
        }
    }

    /// Gives back the attempt a right password took (best effort: a refund lost to a Redis
    /// error only spends the budget a little sooner).
    func refund(now: Date = Date()) async {
        guard self.failuresPerHour > 0 else { return }
        let (window, _) = Self.window(now)
        _ = try? await self.redis.command(["DECR", self.key(window)])
    }

    /// The hour (Unix hours) and the seconds left in it.
    static func window(_ now: Date) -> (Int, Int) {
        let seconds = Int(now.timeIntervalSince1970)
        return (seconds / 3600, 3600 - seconds % 3600)
    }
}

extension APIError {
    /// Admin login fails closed when its limits cannot be counted.
    static var adminLoginUnavailable: APIError {
        APIError(.serviceUnavailable, .serviceUnavailable, "Admin sign-in is temporarily unavailable, please retry")
    }
}
