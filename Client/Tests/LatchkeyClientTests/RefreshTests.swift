import Foundation
import Testing

@testable import LatchkeyClient

/// Refresh ahead of expiry and on `token_expired`, one refresh however many callers need it,
/// one retry, and the refusals that sign the client out.
@Suite struct RefreshTests {
    let clock = TestClock()

    /// A gateway whose refresh answers `access-2` / `refresh-2` after a pause (so callers pile
    /// up behind it) and whose favorites list accepts only `access-2`.
    func gateway(
        refreshDelay: Duration = .milliseconds(50), before: @escaping @Sendable (HTTPRequest) async -> Void = { _ in }
    ) -> StubTransport {
        let clock = self.clock
        return StubTransport { request in
            await before(request)
            if request.url.path == "/api/v1/auth/refresh" {
                try await Task.sleep(for: refreshDelay)
                return Reply.tokens(access: "access-2", refresh: "refresh-2", now: clock.now)
            }
            guard request.bearer == "access-2" else { return Reply.error(401, "token_expired") }
            return Reply.json(200, ["items": [], "next_cursor": NSNull()])
        }
    }

    @Test func fiftyCallsOnAnExpiredTokenShareOneRefreshAndAllSucceed() async throws {
        let transport = self.gateway()
        let store = InMemoryTokenStore(try storedTokens(now: self.clock.now, expiresIn: 900))
        let client = makeClient(transport, clock: self.clock, store: store)
        self.clock.advance(by: 901)

        try await withThrowingTaskGroup(of: Page<Favorite>.self) { group in
            for _ in 0..<50 { group.addTask { try await client.favoritesPage() } }
            var pages = 0
            for try await page in group {
                #expect(page.items.isEmpty)
                pages += 1
            }
            #expect(pages == 50)
        }
        let refreshes = transport.requests("POST", "/api/v1/auth/refresh")
        #expect(refreshes.count == 1)
        #expect(refreshes.first?.json["refresh_token"] as? String == "refresh-1")
        // Refreshed ahead of the request: no call went out with the expired token.
        #expect(transport.requests("GET", "/api/v1/favorites").map(\.bearer) == Array(repeating: "access-2", count: 50))
        #expect(await store.load()?.refreshToken == "refresh-2")
    }

    @Test func fiftyCallsRefusedWithTokenExpiredShareOneRefreshAndRetryOnce() async throws {
        // The gateway answers none of the 50 before all 50 arrived with the old token.
        let barrier = Barrier(count: 50)
        let transport = self.gateway(before: { request in if request.bearer == "access-1" { await barrier.arrive() } })
        // The client's clock says the token is fresh; the gateway says it expired.
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))

        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<50 { group.addTask { _ = try await client.favoritesPage() } }
            try await group.waitForAll()
        }
        #expect(transport.requests("POST", "/api/v1/auth/refresh").count == 1)
        let lists = transport.requests("GET", "/api/v1/favorites")
        #expect(lists.filter { $0.bearer == "access-1" }.count == 50)
        #expect(lists.filter { $0.bearer == "access-2" }.count == 50)
        #expect(try await client.validTokens().accessToken == "access-2")
    }

    @Test func refreshesWithinTheMarginBeforeExpiry() async throws {
        let transport = self.gateway()
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        self.clock.advance(by: 800)
        #expect(try await client.validTokens().accessToken == "access-1")
        #expect(transport.requests.isEmpty)
        self.clock.advance(by: 41)  // 59 s left: inside the 60 s margin
        _ = try await client.favoritesPage()
        #expect(transport.requests.map(\.url.path) == ["/api/v1/auth/refresh", "/api/v1/favorites"])
    }

    @Test func aShortLivedTokenIsRefreshedOnlyInTheSecondHalfOfItsLife() async throws {
        let transport = self.gateway()
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now, expiresIn: 10)))
        self.clock.advance(by: 4)
        #expect(try await client.validTokens().accessToken == "access-1")
        self.clock.advance(by: 2)
        #expect(try await client.validTokens().accessToken == "access-2")
        #expect(transport.requests("POST", "/api/v1/auth/refresh").count == 1)
    }

    @Test func aRequestIsRetriedOnlyOnce() async throws {
        let clock = self.clock
        let transport = StubTransport { request in
            if request.url.path == "/api/v1/auth/refresh" { return Reply.tokens(access: "access-2", refresh: "refresh-2", now: clock.now) }
            return Reply.error(401, "token_expired", requestID: "req-\(request.bearer ?? "")")
        }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        await #expect {
            try await client.favoritesPage()
        } throws: { error in
            guard case LatchkeyError.tokenExpired(let detail) = error else { return false }
            return detail.requestID == "req-access-2"
        }
        #expect(transport.requests.map(\.url.path) == ["/api/v1/favorites", "/api/v1/auth/refresh", "/api/v1/favorites"])
        // Still signed in: an expired token is not a revoked session.
        #expect(try await client.authState().user != nil)
    }

    @Test(arguments: [(401, "refresh_token_reused"), (401, "invalid_refresh_token"), (401, "session_revoked"), (403, "user_inactive")])
    func aRefusedRefreshSignsOutClearsTheStoreAndTellsEverySubscriber(status: Int, code: String) async throws {
        let transport = StubTransport { request in
            if request.url.path == "/api/v1/auth/refresh" {
                try await Task.sleep(for: .milliseconds(200))
                return Reply.error(status, code)
            }
            return Reply.error(401, "token_expired")
        }
        let store = InMemoryTokenStore(try storedTokens(now: self.clock.now))
        let client = makeClient(transport, clock: self.clock, store: store)
        let first = client.authStates()
        let second = client.authStates()
        var firstStates = first.makeAsyncIterator()
        var secondStates = second.makeAsyncIterator()
        #expect(await firstStates.next()?.user != nil)
        #expect(await secondStates.next()?.user != nil)

        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await client.favoritesPage()
                        return nil
                    } catch {
                        return (error as? LatchkeyError)?.code ?? "\(error)"
                    }
                }
            }
            // Each caller gets the refusal, or (one that came after it) notSignedIn.
            var failures: [String?] = []
            for try await failure in group { failures.append(failure) }
            #expect(failures.contains(code))
            #expect(failures.allSatisfy { $0 == code || $0 == "notSignedIn" })
        }
        #expect(transport.requests("POST", "/api/v1/auth/refresh").count == 1)
        #expect(await firstStates.next() == .signedOut(.refreshRejected))
        #expect(await secondStates.next() == .signedOut(.refreshRejected))
        #expect(await store.load() == nil)
        await #expect(throws: LatchkeyError.self) { try await client.favoritesPage() }
        #expect(try await client.authState() == .signedOut(.refreshRejected))
    }

    @Test(arguments: [503, 429, 0])
    func aRefreshWithoutAnAnswerKeepsTheSession(status: Int) async throws {
        let transport = StubTransport { request in
            guard request.url.path == "/api/v1/auth/refresh" else { return Reply.error(401, "token_expired") }
            if status == 0 { throw URLError(.notConnectedToInternet) }
            return Reply.error(status, status == 429 ? "rate_limited" : "service_unavailable", headers: ["Retry-After": "7"])
        }
        let store = InMemoryTokenStore(try storedTokens(now: self.clock.now))
        let client = makeClient(transport, clock: self.clock, store: store, refreshRetryWindow: 0, maximumAttempts: 1)
        await #expect(throws: LatchkeyError.self) { try await client.favoritesPage() }
        #expect(await store.load()?.refreshToken == "refresh-1")
        #expect(try await client.authState().user != nil)
    }

    @Test func sessionRevokedOnARequestSignsOut() async throws {
        let transport = StubTransport { _ in Reply.error(401, "session_revoked") }
        let store = InMemoryTokenStore(try storedTokens(now: self.clock.now))
        let client = makeClient(transport, clock: self.clock, store: store)
        var states = client.authStates().makeAsyncIterator()
        #expect(await states.next()?.user != nil)
        await #expect {
            try await client.favorite("a")
        } throws: { error in
            if case LatchkeyError.sessionRevoked = error { return true }
            return false
        }
        #expect(await states.next() == .signedOut(.sessionRevoked))
        #expect(await store.load() == nil)
        #expect(transport.requests("POST", "/api/v1/auth/refresh").isEmpty)
        await #expect {
            try await client.favorite("a")
        } throws: { error in
            if case LatchkeyError.notSignedIn = error { return true }
            return false
        }
        #expect(transport.requests.count == 1)
    }

    @Test func anOldRequestsRevocationDoesNotEndANewerSignIn() async throws {
        let clock = self.clock
        let transport = StubTransport { request in
            switch (request.url.path, request.bearer) {
            case ("/api/v1/auth/apple", _): return Reply.tokens(access: "access-new", refresh: "refresh-new", now: clock.now)
            case (_, "access-1"):
                try await Task.sleep(for: .milliseconds(200))
                return Reply.error(401, "session_revoked")
            default: return Reply.json(200, ["items": [], "next_cursor": NSNull()])
            }
        }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        let old = Task { try await client.favoritesPage() }
        while transport.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        try await client.signIn(with: AppleCredential(identityToken: "apple-token"))
        await #expect(throws: LatchkeyError.self) { try await old.value }
        #expect(try await client.validTokens().accessToken == "access-new")
    }
}
