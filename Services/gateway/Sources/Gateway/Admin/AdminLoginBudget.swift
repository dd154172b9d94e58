import Foundation
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

    /// 429 while the hour's budget is spent; 503 when Redis cannot tell.
    func checkOpen(now: Date = Date()) async throws {
        guard self.failuresPerHour > 0 else { return }
        let (window, retryAfter) = Self.window(now)
        let spent: Int
        do {
            spent = try await self.redis.command(["GET", self.key(window)]).intValue ?? 0
        } catch {
            throw APIError.adminLoginUnavailable
        }
        guard spent < self.failuresPerHour else {
            throw APIError(
                .tooManyRequests, .rateLimited, "Too many failed admin logins, please retry in \(retryAfter) seconds",
                headers: [.retryAfter: "\(retryAfter)"])
        }
    }

    /// Counts one wrong password.
    func recordFailure(now: Date = Date()) async throws {
        guard self.failuresPerHour > 0 else { return }
        let (window, _) = Self.window(now)
        do {
            _ = try await self.redis.pipeline([["INCR", self.key(window)], ["EXPIRE", self.key(window), "3601"]])
        } catch {
            throw APIError.adminLoginUnavailable
        }
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
