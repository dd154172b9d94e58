import TestSupport
import Foundation
import Logging
import ServiceProtocol
import Testing
import TokensAPI

/// Each backend serves `/healthz`, `/readyz` and `/metrics` on its `OPS_PORT`.
@Suite(.timeLimit(.minutes(5))) struct OpsEndpointTests {
    typealias Backend = BackendProcess

    @Test(arguments: [("identity", ["postgres"]), ("tokens", ["postgres", "redis"]), ("content-state", ["postgres"])])
    func backendServesProbesAndRPCMetrics(_ name: String, _ checks: [String]) async throws {
        let backend = try Backend(name)
        let healthz = try await httpGetWhenUp(backend.url("/healthz"))
        #expect(healthz?.status == 200, "stderr: \(backend.process.stderr) stdout: \(backend.process.stdout)")
        #expect(healthz?.text == #"{"status":"ok"}"#)

        let readyz = try #require(await httpGet(backend.url("/readyz")))
        #expect(readyz.status == 200)
        let readiness = try JSONDecoder().decode(Readiness.self, from: readyz.body)
        #expect(readiness.status == "ok")
        #expect(readiness.checks == Dictionary(uniqueKeysWithValues: checks.map { ($0, "ok") }))

        _ = try await backend.withClient { client in
            try await client.call(Health.method, Empty(), as: Health.Result.self)
        }
        let metrics = try await backend.metrics()
        #expect(metrics.contains(#"rpc_server_requests_total{method="health",code="ok"} 1"#), "\(metrics)")
        #expect(metrics.contains(#"rpc_server_request_duration_seconds_count{method="health"} 1"#))
        #expect(metrics.contains("postgres_pool_connections "))
        await backend.stop()
    }

    @Test func tokensCountsRotationsReuseAndRevocations() async throws {
        let backend = try await Backend.started("tokens", ["REFRESH_REUSE_GRACE": "0"])
        let userID = UUID()
        try await backend.withClient { client in
            let issued = try await client.call(Tokens.issue, IssueParams(userID: userID))
            _ = try await client.call(Tokens.refresh, RefreshParams(refreshToken: issued.refreshToken))
            try await Task.sleep(for: .milliseconds(20))
            let reuse = await #expect(throws: RPCError.self) {
                try await client.call(Tokens.refresh, RefreshParams(refreshToken: issued.refreshToken))
            }
            #expect(reuse?.code == .refreshTokenReused)
            let second = try await client.call(Tokens.issue, IssueParams(userID: userID))
            _ = try await client.call(Tokens.revoke, RevokeParams(userID: userID, sessionID: second.sessionID))
        }
        let metrics = try await backend.metrics()
        #expect(metrics.contains("\ntokens_refresh_rotations_total 1\n"), "\(metrics)")
        #expect(metrics.contains("\ntokens_refresh_reuse_detected_total 1\n"))
        #expect(metrics.contains(#"tokens_sessions_revoked_total{reason="refresh_token_reused"} 1"#))
        #expect(metrics.contains(#"tokens_sessions_revoked_total{reason="logout"} 1"#))
        #expect(metrics.contains(#"rpc_server_requests_total{method="tokens.refresh",code="refresh_token_reused"} 1"#))
        #expect(metrics.contains("redis_pool_connections "))
        await backend.stop()
    }

    /// The body of `/readyz`.
    struct Readiness: Decodable {
        var status: String
        var checks: [String: String]
    }
}
