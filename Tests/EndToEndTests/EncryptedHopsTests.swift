import Foundation
import Logging
import Postgres
import Redis
import TestSupport
import Testing

/// DESIGN.md §9.5, every hop encrypted at once: the whole stack against a Postgres that speaks
/// TLS (`sslmode=verify-full`), a `redis-server` that speaks TLS only (`rediss://` with the
/// authority's file), and the internal RPC over mutual TLS; one throwaway authority per run.
/// The walk covers each hop: sign-in (gateway → identity → Postgres, → tokens), refresh
/// (tokens, Redis), a revocation a second gateway learns from the Redis message, favorites
/// (content-state).
@Suite("End to end: every hop over TLS", .timeLimit(.minutes(5)))
struct EncryptedHopsTests {
    @Test func signInRefreshRevocationAndFavoritesWithEveryHopEncrypted() async throws {
        let folder = NSTemporaryDirectory() + "latchkey-e2e-tls-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await TestCertificates.make(in: folder, names: ["redis", "service"])
        try await PrivatePostgresServer.with(tls: true) { postgres in
            try await PrivateRedisServer.with(certificates: folder) { redis in
                let databaseURL = "postgres://postgres@localhost:\(postgres.port)/postgres?hostaddr=127.0.0.1"
                    + "&sslmode=verify-full&sslrootcert=\(postgres.caFile)"
                let environment = [
                    "DATABASE_URL": databaseURL, "REDIS_TLS_CA_FILE": folder + "/ca.crt",
                    "RPC_TLS_CERT_FILE": folder + "/service.crt", "RPC_TLS_KEY_FILE": folder + "/service.key",
                    "RPC_TLS_CA_FILE": folder + "/ca.crt",
                ]
                let redisURL = "rediss://localhost:\(redis.port)/0"
                try await Stack.with(redisURL: redisURL, environment: environment) { stack in
                    try await stack.withAnotherGateway(environment: ["REVOCATION_CACHE_TTL": "60"]) { b, _ in
                        try await walk(stack, secondGateway: b)
                    }
                    try await operatorCLIUsesTheRPCsTLS(stack, files: environment.filter { $0.key.hasPrefix("RPC_TLS_") })
                    try await expectEveryConnectionEncrypted(databaseURL: databaseURL, redis: redis.url, caFile: folder + "/ca.crt")
                }
            }
        }
    }

    private func walk(_ stack: Stack, secondGateway b: String) async throws {
        let session = try await stack.signInApple()
        let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken])
        #expect(refreshed.status == 200)
        let current = try Session(refreshed.json)
        #expect(try await stack.request("PUT", "/api/v1/favorites/encrypted-item", token: current.accessToken).status == 200)
        let list = try await stack.request("GET", "/api/v1/favorites?limit=10", token: current.accessToken)
        #expect(list.status == 200)
        #expect(((list.json["items"] as? [[String: Any]]) ?? []).compactMap { $0["item_id"] as? String } == ["encrypted-item"])
        // B has seen the session live and keeps that verdict for a minute: a refusal sooner
        // comes from the revocation's message over the TLS subscription.
        #expect(try await stack.request("GET", "/api/v1/auth/me", token: current.accessToken, gateway: b).status == 200)
        #expect(try await stack.request("POST", "/api/v1/auth/logout", token: current.accessToken).status == 204)
        var refusal: Stack.Reply?
        try await waitUntil("gateway B refuses the revoked session", timeout: .seconds(30), interval: .milliseconds(100)) {
            let reply = try await stack.request("GET", "/api/v1/auth/me", token: current.accessToken, gateway: b)
            refusal = reply
            return reply.status != 200
        }
        #expect(refusal?.errorCode == "session_revoked")
    }

    /// The operator CLI reaches backends that speak TLS only when it is given the RPC's files.
    private func operatorCLIUsesTheRPCsTLS(_ stack: Stack, files: [String: String]) async throws {
        let user = try await stack.signInApple().userID
        func latchkey(_ extra: [String: String]) async throws -> (Int32?, String) {
            let process = try ServiceProcess(
                "latchkey", arguments: ["users", "show", user, "--timeout", "5"],
                environment: stack.operatorEnvironment.merging(extra) { $1 })
            return (await process.waitForExit(timeout: .seconds(90)), process.stderr)
        }
        let (status, stderr) = try await latchkey(files)
        #expect(status == 0, "\(stderr)")
        #expect(try await latchkey([:]).0 != 0, "without the TLS files the backends do not answer")
    }

    /// Every client connection Postgres has is encrypted (the services' and this check's), and
    /// Redis, which has no plaintext port, holds the services' connections.
    private func expectEveryConnectionEncrypted(databaseURL: String, redis: RedisURL, caFile: String) async throws {
        let (encrypted, total) = try await withTestDatabase(poolSize: 1, url: databaseURL) { client in
            let row = try await client.query(
                """
                SELECT count(*) FILTER (WHERE s.ssl) AS encrypted, count(*) AS total
                FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.backend_type = 'client backend'
                """)[0]
            return (try row.decode("encrypted", as: Int.self), try row.decode("total", as: Int.self))
        }
        #expect(total >= 4, "identity, tokens, content-state and this check")
        #expect(encrypted == total)
        var logger = Logger(label: "e2e-tls")
        logger.logLevel = .critical
        let client = RedisClient(configuration: RedisConfiguration(url: redis, poolSize: 1, tls: try RedisTLSContext(caFile: caFile)), logger: logger)
        let reply: RedisValue
        do {
            reply = try await client.command("INFO", "clients")
            await client.shutdown()
        } catch {
            await client.shutdown()
            throw error
        }
        let info = try #require(reply.stringValue)
        let connected = info.split(separator: "\r\n").first { $0.hasPrefix("connected_clients:") }.flatMap { Int($0.dropFirst(18)) }
        #expect((connected ?? 0) >= 4, "gateways, tokens, identity and this check: \(info)")
    }
}
