import Foundation
import Hummingbird
import Redis
import ServiceProtocol

/// `/healthz` (the process answers) and `/readyz` (Redis and every backend answer `health`).
struct OperationsRoutes: Sendable {
    let redis: RedisClient
    let backends: Backends

    struct Status: Encodable {
        var status: String
        var checks: [String: String]?
    }

    func add(to router: Router<GatewayRequestContext>) {
        router.get("healthz") { _, _ in
            try jsonResponse(Status(status: "ok"))
        }
        router.get("readyz") { _, _ in
            let checks = await self.checks()
            let ready = checks.values.allSatisfy { $0 == "ok" }
            return try jsonResponse(
                Status(status: ready ? "ok" : "unavailable", checks: checks), status: ready ? .ok : .serviceUnavailable)
        }
    }

    /// Each dependency asked at once, each with a short deadline.
    func checks() async -> [String: String] {
        await withTaskGroup(of: (String, String).self) { group in
            group.addTask {
                do {
                    try await self.redis.ping()
                    return ("redis", "ok")
                } catch {
                    return ("redis", "unavailable")
                }
            }
            for (name, client) in [("identity", self.backends.identity), ("tokens", self.backends.tokens), ("content-state", self.backends.contentState)] {
                group.addTask {
                    do {
                        let health = try await client.call("health", Empty(), as: Health.Result.self, options: .init(timeout: .seconds(2)))
                        return (name, health.status == "ok" ? "ok" : health.status)
                    } catch {
                        return (name, "unavailable")
                    }
                }
            }
            var checks: [String: String] = [:]
            for await (name, status) in group { checks[name] = status }
            return checks
        }
    }
}
