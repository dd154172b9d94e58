import Foundation
import TestSupport
import Testing

/// Two gateways in front of two `tokens` replicas, each gateway calling one replica only
/// (gateway A → tokens-0, gateway B → tokens-1): what one replica or one gateway decides holds
/// on the other. Gateway B keeps live revocation verdicts for 60 s (`REVOCATION_CACHE_TTL`), so
/// a refusal it gives sooner comes from the revocation's message, not from its cache expiring.
@Suite("End to end: two gateways by two token replicas", .timeLimit(.minutes(5)))
struct ReplicasAcrossGatewaysTests {
    static let cacheTTL = 60

    /// The stack with gateway A on tokens-0, and gateway B on tokens-1; `body` gets B's URL.
    func withTwoGateways(tokensEnvironment: [String: String] = [:], _ body: (Stack, _ b: String) async throws -> Void) async throws {
        try await Stack.with(
            tokensReplicas: 2, gatewayTokensReplicas: 0..<1, gatewayEnvironment: ["RATE_LIMIT_REFRESH_PER_MIN": "0"],
            tokensEnvironment: tokensEnvironment
        ) { stack in
            try await stack.withAnotherGateway(
                environment: ["TOKENS_ENDPOINTS": "127.0.0.1:\(stack.tokensPorts[1])", "REVOCATION_CACHE_TTL": "\(Self.cacheTTL)"]
            ) { b, _ in
                try await body(stack, b)
            }
        }
    }

    /// A gateway's answer to `me` once it stops being 200, waited for up to `timeout`.
    func refusal(_ stack: Stack, _ token: String, at gateway: String, timeout: Duration) async throws -> Stack.Reply {
        var last: Stack.Reply?
        try await waitUntil("the token is refused at \(gateway)", timeout: timeout, interval: .milliseconds(100)) {
            let reply = try await stack.request("GET", "/api/v1/auth/me", token: token, gateway: gateway)
            last = reply
            return reply.status != 200
        }
        return try #require(last)
    }

    @Test func reuseDetectedOnOneReplicaRevokesTheSessionEverywhere() async throws {
        try await self.withTwoGateways(tokensEnvironment: ["REFRESH_REUSE_GRACE": "1"]) { stack, b in
            let a = stack.gatewayURL
            let first = try await stack.signInApple()
            let rotated = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": first.refreshToken], gateway: a)
            #expect(rotated.status == 200)
            let successor = try Session(rotated.json)
            for gateway in [a, b] {
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: successor.accessToken, gateway: gateway).status == 200)
            }
            // The rotated-away token again, through B and so tokens-1: within the grace window it
            // gets the very pair tokens-0 gave; once the window has passed, it is reuse.
            var reuse: Stack.Reply?
            try await waitUntil("tokens-1 sees the old token as reuse", timeout: .seconds(30), interval: .milliseconds(200)) {
                let again = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": first.refreshToken], gateway: b)
                if again.status == 200 {
                    #expect(try Session(again.json).refreshToken == successor.refreshToken, "a retry within the grace gets the same pair")
                    return false
                }
                reuse = again
                return true
            }
            #expect(reuse?.status == 401)
            #expect(reuse?.errorCode == "refresh_token_reused")
            // The whole session is dead through both gateways and both replicas.
            for gateway in [a, b] {
                let refused = try await self.refusal(stack, successor.accessToken, at: gateway, timeout: .seconds(Self.cacheTTL - 10))
                #expect(refused.status == 401, "\(gateway)")
                #expect(refused.errorCode == "session_revoked", "\(gateway)")
                let refresh = try await stack.request(
                    "POST", "/api/v1/auth/refresh", body: ["refresh_token": successor.refreshToken], gateway: gateway)
                #expect(refresh.status == 401, "\(gateway)")
                #expect(["invalid_refresh_token", "refresh_token_reused"].contains(refresh.errorCode), "\(gateway): \(refresh.json)")
            }
        }
    }

    @Test func aLogoutThroughOneGatewayIsRefusedByTheOther() async throws {
        try await self.withTwoGateways { stack, b in
            let session = try await stack.signInApple()
            let bystander = try await stack.signInApple()
            // B has seen both sessions live, and keeps that verdict for a minute.
            for token in [session.accessToken, bystander.accessToken] {
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: token, gateway: b).status == 200)
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: token, gateway: b).status == 200)
            }
            #expect(try await stack.request("POST", "/api/v1/auth/logout", token: session.accessToken).status == 204)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken).errorCode == "session_revoked")
            let refused = try await self.refusal(stack, session.accessToken, at: b, timeout: .seconds(Self.cacheTTL - 10))
            #expect(refused.status == 401)
            #expect(refused.errorCode == "session_revoked")
            // Only that session: the other one lives through both.
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: bystander.accessToken, gateway: b).status == 200)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: bystander.accessToken).status == 200)
        }
    }

    @Test func aKeyAddedToTheReplicasVerifiesOnBothGateways() async throws {
        let environment = ["SIGNING_KEY_ACTIVATION_DELAY": "2", "SIGNING_KEYS_RELOAD_INTERVAL": "1"]
        try await self.withTwoGateways(tokensEnvironment: environment) { stack, b in
            let a = stack.gatewayURL
            let before = try await stack.signInApple()
            let oldKid = try accessTokenKid(before.accessToken)
            // Both gateways know the first key.
            for gateway in [a, b] {
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: before.accessToken, gateway: gateway).status == 200)
            }
            try await Stack.keygen(into: stack.keysFolder)
            // Each replica signs with the new key once it has loaded it and its delay has
            // passed; a token of either replica's signing verifies on both gateways, though each
            // gateway learns the key from its own replica only.
            var current = before
            for (signer, other) in [(a, b), (b, a)] {
                try await waitUntil("the replica behind \(signer) signs with the new key", timeout: .seconds(60), interval: .milliseconds(250)) {
                    let refreshed = try await stack.request(
                        "POST", "/api/v1/auth/refresh", body: ["refresh_token": current.refreshToken], gateway: signer)
                    #expect(refreshed.status == 200, "\(refreshed.json)")
                    current = try Session(refreshed.json)
                    return try accessTokenKid(current.accessToken) != oldKid
                }
                let token = current.accessToken
                for gateway in [other, signer] {
                    let me = try await stack.request("GET", "/api/v1/auth/me", token: token, gateway: gateway)
                    #expect(me.status == 200, "a token signed behind \(signer), checked at \(gateway): \(me.json)")
                }
            }
            // The old key's token still verifies on both.
            for gateway in [a, b] {
                #expect(try await stack.request("GET", "/api/v1/auth/me", token: before.accessToken, gateway: gateway).status == 200)
            }
        }
    }

}
