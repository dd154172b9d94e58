import Foundation
import Testing

@testable import LatchkeyClient

/// What sign-in, linking, sessions, logout and account deletion send, and what they do to the
/// client's session.
@Suite struct SignInTests {
    let clock = TestClock()

    /// A gateway that signs in anyone and answers 204 or a user to everything else.
    func gateway() -> StubTransport {
        let clock = self.clock
        return StubTransport { request in
            switch request.url.path {
            case "/api/v1/auth/apple", "/api/v1/auth/google":
                return Reply.tokens(access: "access-1", refresh: "refresh-1", now: clock.now, isNewUser: true)
            case "/api/v1/auth/identities/google", "/api/v1/auth/identities/apple", "/api/v1/auth/me":
                var user = Reply.userJSON
                user["providers"] = request.method == "DELETE" ? ["google"] : ["apple", "google"]
                return Reply.json(200, user)
            case "/api/v1/auth/sessions":
                return Reply.json(200, [
                    "sessions": [
                        [
                            "id": "s1", "device_name": "iPhone", "created_at": "2026-11-23T10:04:05.123Z",
                            "last_used_at": "2026-11-23T10:05:05.123Z", "expires_at": "2026-12-23T10:04:05.123Z", "current": true,
                        ],
                        [
                            "id": "s2", "device_name": NSNull(), "created_at": "2026-11-23T10:04:05Z", "last_used_at": NSNull(),
                            "expires_at": "2026-12-23T10:04:05Z", "current": false,
                        ],
                    ]
                ])
            default:
                return Reply.noContent
            }
        }
    }

    @Test func appleSignInSendsTheCredentialNameNonceAndDeviceAndKeepsTheSession() async throws {
        let transport = self.gateway()
        let store = InMemoryTokenStore()
        let client = makeClient(transport, clock: self.clock, store: store, deviceName: "Ada's iPhone")
        var states = client.authStates().makeAsyncIterator()
        #expect(await states.next() == .signedOut(.notSignedIn))

        var name = PersonNameComponents()
        name.givenName = "Ada"
        name.familyName = "Lovelace"
        let nonce = AppleNonce()
        let result = try await client.signIn(
            with: AppleCredential(
                identityToken: "apple-jwt", authorizationCode: "code-1", fullName: name, email: "ada@example.com", nonce: nonce.raw))
        #expect(result.isNewUser)
        #expect(result.user.displayName == "Ada Lovelace")
        #expect(result.user.createdAt == RFC3339.date(from: "2026-11-23T10:04:05.123Z"))

        let request = try #require(transport.requests.first)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://gateway.test/api/v1/auth/apple")
        #expect(request.headers["Content-Type"] == "application/json")
        #expect(request.headers["X-Test"] == "1")
        #expect(request.headers["Authorization"] == nil)
        let body = request.json
        #expect(body["identity_token"] as? String == "apple-jwt")
        #expect(body["authorization_code"] as? String == "code-1")
        #expect(body["nonce"] as? String == nonce.raw)
        #expect(body["email"] as? String == "ada@example.com")
        #expect(body["device_name"] as? String == "Ada's iPhone")
        #expect(body["full_name"] as? [String: String] == ["given_name": "Ada", "family_name": "Lovelace"])

        #expect(await states.next() == .signedIn(result.user))
        #expect(await store.load()?.accessToken == "access-1")
    }

    @Test func appleSignInLeavesOutWhatAppleDidNotGive() async throws {
        let transport = self.gateway()
        try await makeClient(transport, clock: self.clock).signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(transport.requests.first.map { Set($0.json.keys) } == ["identity_token"])
    }

    @Test func googleSignInWithAnIDTokenOrAnAccessToken() async throws {
        let transport = self.gateway()
        let client = makeClient(transport, clock: self.clock)
        try await client.signIn(with: .idToken("google-id", nonce: "n1"))
        try await client.signIn(with: .accessToken("google-access"))
        let bodies = transport.requests("POST", "/api/v1/auth/google").map(\.json)
        #expect(bodies.count == 2)
        #expect(bodies.first?["id_token"] as? String == "google-id")
        #expect(bodies.first?["nonce"] as? String == "n1")
        #expect(bodies.last?["access_token"] as? String == "google-access")
        #expect(bodies.last?["id_token"] == nil)
    }

    @Test func linkUnlinkAndSessions() async throws {
        let transport = self.gateway()
        let client = makeClient(transport, clock: self.clock)
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        var states = client.authStates().makeAsyncIterator()
        _ = await states.next()

        let linked = try await client.link(.google(.idToken("google-id")))
        #expect(linked.providers == [.apple, .google])
        let link = try #require(transport.requests("POST", "/api/v1/auth/identities/google").first)
        #expect(link.json["id_token"] as? String == "google-id")
        #expect(link.bearer == "access-1")
        // The stored user follows, and subscribers hear of it.
        #expect(await states.next()?.user?.providers == [.apple, .google])

        let unlinked = try await client.unlink(.apple)
        #expect(unlinked.providers == [.google])
        #expect(transport.requests("DELETE", "/api/v1/auth/identities/apple").count == 1)

        let sessions = try await client.sessions()
        #expect(sessions.map(\.id) == ["s1", "s2"])
        #expect(sessions.map(\.current) == [true, false])
        #expect(sessions.last?.deviceName == nil)
        #expect(sessions.last?.lastUsedAt == nil)
        try await client.deleteSession(id: "s2")
        #expect(transport.requests("DELETE", "/api/v1/auth/sessions/s2").count == 1)
    }

    @Test(arguments: [SignOutScope.thisDevice, .otherDevices, .everywhere])
    func signOutSendsItsScope(scope: SignOutScope) async throws {
        let transport = self.gateway()
        let store = InMemoryTokenStore()
        let client = makeClient(transport, clock: self.clock, store: store)
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        try await client.signOut(scope)
        let logout = try #require(transport.requests("POST", "/api/v1/auth/logout").first)
        #expect(logout.json["scope"] as? String == scope.rawValue)
        if scope == .otherDevices {
            #expect(try await client.authState().user != nil)
            #expect(await store.load() != nil)
        } else {
            #expect(try await client.authState() == .signedOut(.signedOut))
            #expect(await store.load() == nil)
        }
    }

    @Test func signOutForgetsTheSessionEvenWhenTheGatewayCannotBeReached() async throws {
        let clock = self.clock
        let transport = StubTransport { request in
            if request.url.path == "/api/v1/auth/apple" { return Reply.tokens(access: "a", refresh: "r", now: clock.now) }
            throw URLError(.timedOut)
        }
        let store = InMemoryTokenStore()
        let client = makeClient(transport, clock: self.clock, store: store)
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        await #expect(throws: LatchkeyError.self) { try await client.signOut() }
        #expect(try await client.authState() == .signedOut(.signedOut))
        #expect(await store.load() == nil)
        // Signed out already: nothing to do, nothing sent.
        let sent = transport.requests.count
        try await client.signOut()
        #expect(transport.requests.count == sent)
    }

    @Test func deleteAccountSignsOutAsDeleted() async throws {
        let transport = self.gateway()
        let store = InMemoryTokenStore()
        let client = makeClient(transport, clock: self.clock, store: store)
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        try await client.deleteAccount()
        #expect(transport.requests("DELETE", "/api/v1/auth/account").first?.bearer == "access-1")
        #expect(try await client.authState() == .signedOut(.accountDeleted))
        #expect(await store.load() == nil)
    }
}
