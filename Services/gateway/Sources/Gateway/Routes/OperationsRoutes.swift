import Postgres
import PostgresService
import Redis
import ServiceKit
import ServiceProtocol

/// What the gateway's `/readyz` asks: Redis answers, every backend answers `health` with
/// `ok` (within two seconds), and the content read pool, when there is one, reaches Postgres.
struct ReadinessChecks {
    struct Degraded: Error {
        var status: String
    }

    static func all(redis: RedisClient, backends: Backends, contentReads: PostgresClient? = nil) -> [HealthCheck] {
        (contentReads.map { [.postgres($0, name: "content-reads")] } ?? [])
            + [.redis(redis)]
            + [("identity", backends.identity), ("tokens", backends.tokens), ("content-state", backends.contentState)].map { name, client in
                HealthCheck(name) {
                    let health = try await client.call(Health.method, Empty(), as: Health.Result.self, options: .init(timeout: .seconds(2)))
                    guard health.status == "ok" else { throw Degraded(status: health.status) }
                }
            }
    }
}
