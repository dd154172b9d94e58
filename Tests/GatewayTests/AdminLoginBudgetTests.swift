import Foundation
import Logging
import Redis
import TestSupport
import Testing

@testable import Gateway

/// The hourly budget of failed admin logins, on the test run's Redis: an attempt is taken from
/// the budget before the password is checked, so guesses arriving together cannot overshoot it.
@Suite struct AdminLoginBudgetTests {
    func withBudget(_ failuresPerHour: Int, _ body: (AdminLoginBudget, Date) async throws -> Void) async throws {
        let redis = RedisClient(
            configuration: RedisConfiguration(url: try RedisURL(parsing: try requiredEnvironment("REDIS_URL")), poolSize: 4),
            logger: Logger(label: "admin-budget-test"))
        // An hour of its own, far from any other test's (the key is per Unix hour).
        let hour = Date(timeIntervalSince1970: Double(Int.random(in: 1_000_000...9_000_000)) * 3600 + 60)
        do {
            try await body(AdminLoginBudget(redis: redis, failuresPerHour: failuresPerHour), hour)
            await redis.shutdown()
        } catch {
            await redis.shutdown()
            throw error
        }
    }

    @Test func guessesArrivingTogetherNeverOvershootTheBudget() async throws {
        try await self.withBudget(3) { budget, hour in
            let admitted = await withTaskGroup(of: Bool.self) { group in
                for _ in 0..<20 { group.addTask { (try? await budget.reserve(now: hour)) != nil } }
                return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(admitted == 3)
            // Spent: the right password too is refused until the hour ends, with Retry-After.
            do {
                try await budget.reserve(now: hour)
                Issue.record("a spent budget admitted an attempt")
            } catch let error as APIError {
                #expect(error.status == .tooManyRequests)
                #expect(error.headers[.retryAfter] == "3540")
            }
        }
    }

    @Test func aRightPasswordGivesItsAttemptBack() async throws {
        try await self.withBudget(2) { budget, hour in
            for _ in 0..<10 {
                try await budget.reserve(now: hour)
                await budget.refund(now: hour)
            }
            try await budget.reserve(now: hour)
            try await budget.reserve(now: hour)
            await #expect(throws: APIError.self) { try await budget.reserve(now: hour) }
        }
    }
}
