import ContentStateService
import Redis
import ServiceKit
import ServiceProtocol

/// What the gateway's `/readyz` asks: Redis answers, every backend answers `health` with
/// `ok` (within two seconds), and the content pool (`CONTENT_DATABASE_URL`), when there is one,
/// reaches Postgres as a role that may do what the content calls do (a read-only role of the
/// release before is not ready; the log names the grants it lacks).
struct ReadinessChecks {
    struct Degraded: Error {
        var status: String
    }

    static func all(redis: RedisClient, backends: Backends, content: ContentCalls? = nil) -> [HealthCheck] {
        (content.map { calls in [HealthCheck("content") { try await calls.checkPrivileges() }] } ?? [])
            + [.redis(redis)]
            + [("identity", backends.identity), ("tokens", backends.tokens), ("content-state", backends.contentState)].map { name, client in
                HealthCheck(name) {
                    let health = try await client.call(Health.method, Empty(), as: Health.Result.self, options: .init(timeout: .seconds(2)))
                    guard health.status == "ok" else { throw Degraded(status: health.status) }
                }
            }
    }
}
