import Foundation
import TestSupport
import TextCoding
import Testing

/// Sessions bound to the device's key (DPoP, RFC 9449; DESIGN.md section 9.2) through the real
/// stack: a proof at sign-in binds the session, and from then on its refreshes and requests
/// need proofs by that key, each refused with `invalid_dpop_proof` and the DPoP challenge when
/// it is not good.
@Suite("End to end: sessions bound to the device's key", .timeLimit(.minutes(6)))
struct BoundSessionTests {
    static let challenge = #"DPoP error="invalid_dpop_proof", algs="ES256""#

    /// A request with `Authorization: DPoP <token>` and `proof` as its `DPoP` header.
    static func bound(
        _ stack: Stack, _ method: String, _ path: String, token: String? = nil, proof: String?, body: Any? = nil, gateway: String? = nil
    ) async throws -> Stack.Reply {
        var headers: [String: String] = [:]
        if let token { headers["Authorization"] = "DPoP \(token)" }
        if let proof { headers["DPoP"] = proof }
        return try await stack.request(method, path, body: body, headers: headers, gateway: gateway)
    }

    /// Signs in with Apple and a proof by `key`: a bound session.
    static func signIn(_ stack: Stack, key: DPoPProofMaker) async throws -> (Session, Stack.Reply) {
        let body = ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)"), "device_name": "phone"]
        let reply = try await Self.bound(
            stack, "POST", "/api/v1/auth/apple", proof: key.proof(method: "POST", url: stack.gatewayURL + "/api/v1/auth/apple"), body: body)
        guard reply.status == 200 else { throw StackError.unexpected("bound sign-in: \(reply.status) \(String(buffer: reply.body))") }
        return (try Session(reply.json), reply)
    }

    /// The claims of an access token, unverified.
    static func claims(_ token: String) throws -> [String: Any] {
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    static func expectRefused(_ reply: Stack.Reply, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == 401, "\(what): \(reply.status)", sourceLocation: sourceLocation)
        #expect(reply.errorCode == "invalid_dpop_proof", "\(what): \(reply.errorCode ?? "no code")", sourceLocation: sourceLocation)
        #expect(reply.header("WWW-Authenticate") == Self.challenge, "\(what)", sourceLocation: sourceLocation)
    }

    @Test func aProofAtSignInBindsTheSessionItsRequestsAndItsRefreshes() async throws {
        try await Stack.with { stack in
            let key = DPoPProofMaker()
            let (session, reply) = try await Self.signIn(stack, key: key)
            #expect(reply.json["token_type"] as? String == "DPoP")
            #expect((try Self.claims(session.accessToken)["cnf"] as? [String: String]) == ["jkt": key.thumbprint])
            let me = stack.gatewayURL + "/api/v1/auth/me"
            let ok = try await Self.bound(
                stack, "GET", "/api/v1/auth/me", token: session.accessToken,
                proof: key.proof(method: "GET", url: me, accessToken: session.accessToken))
            #expect(ok.status == 200)
            let sessionsURL = stack.gatewayURL + "/api/v1/auth/sessions"
            let sessions = try await Self.bound(
                stack, "GET", "/api/v1/auth/sessions", token: session.accessToken,
                proof: key.proof(method: "GET", url: sessionsURL, accessToken: session.accessToken))
            #expect((sessions.json["sessions"] as? [[String: Any]])?.first?["bound"] as? Bool == true)
            // Content with a proof; the path as sent (percent-encoded) is the one signed.
            let favorite = try await Self.bound(
                stack, "PUT", "/api/v1/favorites/a%20b", token: session.accessToken,
                proof: key.proof(method: "PUT", url: stack.gatewayURL + "/api/v1/favorites/a%20b", accessToken: session.accessToken))
            #expect(favorite.status == 200)

            // The refresh needs a proof by the same key: tokens refuses it without one.
            let refreshURL = stack.gatewayURL + "/api/v1/auth/refresh"
            let body = ["refresh_token": session.refreshToken]
            Self.expectRefused(try await stack.request("POST", "/api/v1/auth/refresh", body: body), "a bound refresh without a proof")
            Self.expectRefused(
                try await Self.bound(stack, "POST", "/api/v1/auth/refresh", proof: DPoPProofMaker().proof(method: "POST", url: refreshURL), body: body),
                "a bound refresh with another key's proof")
            let refreshed = try await Self.bound(
                stack, "POST", "/api/v1/auth/refresh", proof: key.proof(method: "POST", url: refreshURL), body: body)
            #expect(refreshed.status == 200, "the refresh token was not spent by the refused attempts")
            #expect(refreshed.json["token_type"] as? String == "DPoP")
            let next = try Session(refreshed.json)
            #expect((try Self.claims(next.accessToken)["cnf"] as? [String: String]) == ["jkt": key.thumbprint])

            // An unbound session beside it is listed unbound and works with Bearer as before.
            let plain = try await stack.signInApple()
            let list = try await stack.request("GET", "/api/v1/auth/sessions", token: plain.accessToken)
            #expect((list.json["sessions"] as? [[String: Any]])?.first?["bound"] as? Bool == false)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: plain.accessToken).status == 200)
        }
    }

    @Test func aGuestWithAProofIsBoundToo() async throws {
        try await Stack.with { stack in
            let key = DPoPProofMaker()
            let reply = try await Self.bound(
                stack, "POST", "/api/v1/auth/guest", proof: key.proof(method: "POST", url: stack.gatewayURL + "/api/v1/auth/guest"))
            #expect(reply.status == 200)
            #expect(reply.json["token_type"] as? String == "DPoP")
            let guest = try Session(reply.json)
            #expect((try Self.claims(guest.accessToken)["cnf"] as? [String: String]) == ["jkt": key.thumbprint])
            Self.expectRefused(
                try await stack.request("GET", "/api/v1/auth/me", token: guest.accessToken), "a bound guest token sent as Bearer")
            // A sign-in that upgrades the bound guest proves the key once, for both.
            let body = ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")]
            let url = stack.gatewayURL + "/api/v1/auth/apple"
            let upgrade = try await Self.bound(
                stack, "POST", "/api/v1/auth/apple", token: guest.accessToken,
                proof: key.proof(method: "POST", url: url, accessToken: guest.accessToken), body: body)
            #expect(upgrade.status == 200)
            #expect(upgrade.json["upgraded_guest"] as? Bool == true)
            #expect(upgrade.json["token_type"] as? String == "DPoP")
        }
    }

    /// Every refusal of item 2 of issue 44, each on the route `me` with a good bound token.
    @Test func everyBadProofIsRefusedWithTheDPoPChallenge() async throws {
        try await Stack.with { stack in
            let key = DPoPProofMaker()
            let (session, _) = try await Self.signIn(stack, key: key)
            let token = session.accessToken
            let url = stack.gatewayURL + "/api/v1/auth/me"
            let me = { (proof: String?) in try await Self.bound(stack, "GET", "/api/v1/auth/me", token: token, proof: proof) }
            let now = Date()
            Self.expectRefused(try await me(nil), "no proof")
            Self.expectRefused(try await me(DPoPProofMaker().proof(method: "GET", url: url, accessToken: token)), "a proof by another key")
            Self.expectRefused(try await me(key.proof(method: "POST", url: url, accessToken: token)), "a wrong htm")
            Self.expectRefused(
                try await me(key.proof(method: "GET", url: stack.gatewayURL + "/api/v1/auth/sessions", accessToken: token)), "a wrong htu")
            Self.expectRefused(
                try await me(key.proof(method: "GET", url: "https://evil.example/api/v1/auth/me", accessToken: token)), "another host in htu")
            Self.expectRefused(try await me(key.proof(method: "GET", url: url)), "a missing ath")
            Self.expectRefused(try await me(key.proof(method: "GET", url: url, accessToken: token + "x")), "a wrong ath")
            Self.expectRefused(
                try await me(key.proof(method: "GET", url: url, accessToken: token, issuedAt: now.addingTimeInterval(-300))), "an old iat")
            Self.expectRefused(
                try await me(key.proof(method: "GET", url: url, accessToken: token, issuedAt: now.addingTimeInterval(300))), "a future iat")
            Self.expectRefused(try await me(key.proof(method: "GET", url: url, accessToken: token, signing: .none)), "alg none")
            let secret = Array(key.key.publicKey.rawRepresentation)
            Self.expectRefused(
                try await me(key.proof(method: "GET", url: url, accessToken: token, signing: .hs256(secret: secret))), "alg HS256")
            var privateJWK = key.jwk
            privateJWK["d"] = Base64URL.encode(key.key.rawRepresentation)
            Self.expectRefused(
                try await me(key.proof(method: "GET", url: url, accessToken: token, header: { $0["jwk"] = privateJWK })),
                "a private key in the jwk")
            Self.expectRefused(try await stack.request("GET", "/api/v1/auth/me", token: token), "a bound token sent as Bearer")
            Self.expectRefused(
                try await stack.request(
                    "GET", "/api/v1/auth/me", token: token,
                    headers: ["DPoP": key.proof(method: "GET", url: url, accessToken: token)]),
                "a bound token sent as Bearer with a good proof")
            // A proof used once is spent.
            let proof = key.proof(method: "GET", url: url, accessToken: token)
            #expect(try await me(proof).status == 200)
            Self.expectRefused(try await me(proof), "a replayed jti")
            // After all of that, a good proof still works: nothing was revoked.
            #expect(try await me(key.proof(method: "GET", url: url, accessToken: token)).status == 200)
        }
    }

    @Test func aProofReplayedAtAnotherGatewayIsRefused() async throws {
        try await Stack.with { stack in
            let key = DPoPProofMaker()
            let (session, _) = try await Self.signIn(stack, key: key)
            // The second gateway is called by the same URL as the first (PUBLIC_BASE_URL, as
            // behind one load balancer), so the proof names both.
            let publicURL = "https://api.example.com"
            try await stack.withAnotherGateway(environment: ["PUBLIC_BASE_URL": publicURL]) { b, _ in
                try await stack.withAnotherGateway(environment: ["PUBLIC_BASE_URL": publicURL]) { c, _ in
                    let proof = key.proof(method: "GET", url: publicURL + "/api/v1/auth/me", accessToken: session.accessToken)
                    let first = try await Self.bound(stack, "GET", "/api/v1/auth/me", token: session.accessToken, proof: proof, gateway: b)
                    #expect(first.status == 200)
                    Self.expectRefused(
                        try await Self.bound(stack, "GET", "/api/v1/auth/me", token: session.accessToken, proof: proof, gateway: c),
                        "the same proof at another gateway")
                }
            }
        }
    }

    /// `htu` is the URL the client called: behind a trusted proxy its `X-Forwarded-Proto` and
    /// `X-Forwarded-Host`; from anyone else the request's own scheme and `Host`.
    @Test func forwardedSchemeAndHostAreBelievedFromTrustedProxiesOnly() async throws {
        try await Stack.with { stack in
            let key = DPoPProofMaker()
            let (session, _) = try await Self.signIn(stack, key: key)
            let token = session.accessToken
            let forwarded = ["Authorization": "DPoP \(token)", "X-Forwarded-Proto": "https", "X-Forwarded-Host": "api.example.com"]
            let publicProof = { key.proof(method: "GET", url: "https://api.example.com/api/v1/auth/me", accessToken: token) }
            // The stack's gateway trusts 127.0.0.0/8, where the test's requests come from.
            var headers = forwarded
            headers["DPoP"] = publicProof()
            #expect(try await stack.request("GET", "/api/v1/auth/me", headers: headers).status == 200)
            try await stack.withAnotherGateway(environment: ["TRUSTED_PROXIES": ""]) { untrusting, _ in
                headers["DPoP"] = publicProof()
                Self.expectRefused(
                    try await stack.request("GET", "/api/v1/auth/me", headers: headers, gateway: untrusting),
                    "forwarded headers from a peer that is not a trusted proxy")
                headers["DPoP"] = key.proof(method: "GET", url: untrusting + "/api/v1/auth/me", accessToken: token)
                #expect(try await stack.request("GET", "/api/v1/auth/me", headers: headers, gateway: untrusting).status == 200)
            }
        }
    }

    @Test func whenRequiredASignInWithoutAProofAndABearerTokenAreRefused() async throws {
        try await Stack.with(gatewayEnvironment: ["DPOP_REQUIRED": "true"]) { stack in
            let body = ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")]
            Self.expectRefused(try await stack.request("POST", "/api/v1/auth/apple", body: body), "a sign-in without a proof")
            Self.expectRefused(try await stack.request("POST", "/api/v1/auth/guest"), "a guest without a proof")
            let key = DPoPProofMaker()
            let (session, _) = try await Self.signIn(stack, key: key)
            let url = stack.gatewayURL + "/api/v1/auth/me"
            #expect(
                try await Self.bound(
                    stack, "GET", "/api/v1/auth/me", token: session.accessToken, proof: key.proof(method: "GET", url: url, accessToken: session.accessToken)
                ).status == 200)
        }
    }
}
