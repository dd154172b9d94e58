import Foundation
import Testing

@testable import LatchkeyClient

/// The session survives what a phone lives through (issue 41): a lost refresh answer, the app
/// killed mid-refresh, a device clock set wrong, a store that fails, two clients on one store,
/// cancellation, and 429/503 with or without the gateway's body.
@Suite struct ResilienceTests {
    let clock = TestClock()

    /// A gateway that rotates like the tokens service: each refresh token once, a repeat within
    /// `grace` (by the test clock's uptime) answered with the same successor, after it refused
    /// as reuse. `drop` decides, per refresh, to lose the answer after acting on it.
    final class RotatingGateway: Sendable {
        let clock: TestClock
        let grace: TimeInterval
        let drop: @Sendable (Int) -> Bool
        /// refresh token -> (successor number, when rotated)
        private let rotated = Locked<[String: (Int, TimeInterval)]>([:])
        private let issued = Locked(1)
        let reused = Locked(0)

        init(clock: TestClock, grace: TimeInterval = 10, drop: @escaping @Sendable (Int) -> Bool = { _ in false }) {
            self.clock = clock
            self.grace = grace
            self.drop = drop
        }

        func transport(delay: Duration = .zero) -> StubTransport {
            StubTransport { request in
                guard request.url.path == "/api/v1/auth/refresh" else {
                    return Reply.json(200, ["items": [], "next_cursor": NSNull()])
                }
                if delay > .zero { try await Task.sleep(for: delay) }
                let token = request.json["refresh_token"] as? String ?? ""
                let (answer, attempt): (HTTPResponse, Int) = self.rotated.withLock { rotated in
                    if let (successor, at) = rotated[token] {
                        if self.clock.uptime - at > self.grace {
                            self.reused.withLock { $0 += 1 }
                            return (Reply.error(401, "refresh_token_reused"), 0)
                        }
                        return (Reply.tokens(access: "access-\(successor)", refresh: "refresh-\(successor)", now: self.clock.now), successor)
                    }
                    let successor = self.issued.withLock { $0 += 1; return $0 }
                    rotated[token] = (successor, self.clock.uptime)
                    return (Reply.tokens(access: "access-\(successor)", refresh: "refresh-\(successor)", now: self.clock.now), successor)
                }
                if attempt > 0, self.drop(request.hashValue) { throw URLError(.networkConnectionLost) }
                return answer
            }
        }
    }

    @Test func aLostRefreshAnswerIsSentAgainAtOnceAndGetsTheSamePair() async throws {
        let dropped = Locked(false)
        let gateway = RotatingGateway(clock: self.clock) { _ in
            dropped.withLock { first in defer { first = true }; return !first }
        }
        let transport = gateway.transport()
        let store = InMemoryTokenStore(try storedTokens(now: self.clock.now))
        let client = makeClient(transport, clock: self.clock, store: store)
        self.clock.advance(by: 900)
        _ = try await client.favoritesPage()
        let refreshes = transport.requests("POST", "/api/v1/auth/refresh").map { $0.json["refresh_token"] as? String }
        #expect(refreshes == ["refresh-1", "refresh-1"])
        let stored = try #require(await store.load())
        #expect(stored.refreshToken == "refresh-2")
        #expect(stored.refreshStartedAt == nil)
        #expect(gateway.reused.withLock { $0 } == 0)
    }

    @Test func aRefreshAttemptPastItsTimeoutIsCancelledAndSentAgain() async throws {
        let calls = Locked(0)
        let cancelled = Locked(false)
        let clock = self.clock
        let transport = StubTransport { request in
            guard request.url.path == "/api/v1/auth/refresh" else { return Reply.json(200, ["items": [], "next_cursor": NSNull()]) }
            if calls.withLock({ $0 += 1; return $0 }) == 1 {
                do { try await Task.sleep(for: .seconds(20)) } catch { cancelled.withLock { $0 = true }; throw error }
            }
            return Reply.tokens(access: "access-2", refresh: "refresh-2", now: clock.now)
        }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        self.clock.advance(by: 900)
        let started = ContinuousClock.now
        #expect(try await client.validTokens().refreshToken == "refresh-2")
        #expect(ContinuousClock.now - started < .seconds(5))  // one 1 s attempt timed out, not 20 s
        #expect(cancelled.withLock { $0 })
    }

    @Test func aRefreshInFlightWhenTheAppWasKilledIsCompletedAtTheNextLaunch() async throws {
        let gateway = RotatingGateway(clock: self.clock)
        let transport = gateway.transport()
        // The previous run sent refresh-1 three seconds ago and was killed before the answer.
        _ = try await gateway.transport().send(
            HTTPRequest(method: "POST", url: URL(string: "https://gateway.test/api/v1/auth/refresh")!,
                        body: try JSONSerialization.data(withJSONObject: ["refresh_token": "refresh-1"])))
        var interrupted = try storedTokens(now: self.clock.now)
        self.clock.advance(by: 3)
        interrupted.refreshStartedAt = self.clock.now.addingTimeInterval(-3)
        let store = InMemoryTokenStore(interrupted)
        let client = makeClient(transport, clock: self.clock, store: store)
        #expect(try await client.validTokens().refreshToken == "refresh-2")
        #expect(transport.requests("POST", "/api/v1/auth/refresh").count == 1)
        #expect(await store.load()?.refreshToken == "refresh-2")

        // Past the window the launch does not refresh by itself.
        var old = try storedTokens(now: self.clock.now)
        old.refreshStartedAt = self.clock.now.addingTimeInterval(-60)
        let later = gateway.transport()
        let relaunched = makeClient(later, clock: self.clock, store: InMemoryTokenStore(old))
        #expect(try await relaunched.validTokens().refreshToken == "refresh-1")
        #expect(later.requests.isEmpty)
    }

    @Test(arguments: [3600.0, -3600.0])
    func aDeviceClockSetWrongCausesNoEarlyOrLateRefresh(offset: TimeInterval) async throws {
        let gateway = RotatingGateway(clock: self.clock)
        let transport = gateway.transport()
        let store = InMemoryTokenStore()
        let client = makeClient(transport, clock: self.clock, store: store)
        let signIn = StubTransport { _ in Reply.tokens(access: "access-1", refresh: "refresh-1", now: Date(timeIntervalSince1970: 1_800_000_000)) }
        await makeClient(signIn, clock: self.clock, store: store).session.signedIn(
            try storedTokens(now: self.clock.now), receivedUptime: self.clock.uptime)
        self.clock.setWallClock(by: offset)
        _ = client
        let relaunched = makeClient(transport, clock: self.clock, store: store)
        // The wall clock moved after the pair was stored: the relaunch refreshes once at most.
        for _ in 0..<20 { _ = try await relaunched.favoritesPage() }
        let afterLaunch = transport.requests("POST", "/api/v1/auth/refresh").count
        #expect(afterLaunch <= 1)
        // From then on the monotonic clock decides: nothing until the margin, then one refresh.
        self.clock.advance(by: 800)
        for _ in 0..<20 { _ = try await relaunched.favoritesPage() }
        #expect(transport.requests("POST", "/api/v1/auth/refresh").count == afterLaunch)
        self.clock.advance(by: 45)
        for _ in 0..<20 { _ = try await relaunched.favoritesPage() }
        #expect(transport.requests("POST", "/api/v1/auth/refresh").count == afterLaunch + 1)
    }

    @Test func aSignedInClientIgnoresTheWallClockEntirely() async throws {
        let transport = RotatingGateway(clock: self.clock).transport()
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore())
        await client.session.signedIn(try storedTokens(now: self.clock.now), receivedUptime: self.clock.uptime)
        self.clock.setWallClock(by: 3600)
        for _ in 0..<10 { _ = try await client.favoritesPage() }
        self.clock.setWallClock(by: -7200)
        for _ in 0..<10 { _ = try await client.favoritesPage() }
        #expect(transport.requests("POST", "/api/v1/auth/refresh").isEmpty)
    }

    @Test func twoClientsSharingAFileStoreNeverRotateTheSameToken() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-shared-\(UUID().uuidString)")
        let file = folder.appendingPathComponent("tokens.json")
        try await FileTokenStore(file: file).save(try storedTokens(now: self.clock.now))
        let gateway = RotatingGateway(clock: self.clock)
        let transport = gateway.transport(delay: .milliseconds(2))
        let app = makeClient(transport, clock: self.clock, store: FileTokenStore(file: file))
        let widget = makeClient(transport, clock: self.clock, store: FileTokenStore(file: file))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for client in [app, widget] {
                group.addTask { for _ in 0..<15 { try await client.refreshTokens() } }
            }
            try await group.waitForAll()
        }
        let presented = transport.requests("POST", "/api/v1/auth/refresh").compactMap { $0.json["refresh_token"] as? String }
        #expect(presented.count >= 15)
        #expect(Set(presented).count == presented.count)  // no token sent twice
        #expect(gateway.reused.withLock { $0 } == 0)
        let final = try #require(try await FileTokenStore(file: file).load())
        #expect(!presented.contains(final.refreshToken))  // the store holds the newest pair
        #expect(FileManager.default.fileExists(atPath: file.path + ".lock"))
    }

    @Test func anOldSessionsRefreshNeverOverwritesANewerSignIn() async throws {
        let clock = self.clock
        let transport = StubTransport { request in
            switch request.url.path {
            case "/api/v1/auth/refresh":
                try await Task.sleep(for: .milliseconds(300))
                return Reply.tokens(access: "access-old-2", refresh: "refresh-old-2", now: clock.now)
            case "/api/v1/auth/apple": return Reply.tokens(access: "access-new", refresh: "refresh-new", now: clock.now)
            default: return Reply.json(200, ["items": [], "next_cursor": NSNull()])
            }
        }
        let store = InMemoryTokenStore(try storedTokens(now: self.clock.now))
        let client = makeClient(transport, clock: self.clock, store: store)
        let refresh = Task { try await client.refreshTokens() }
        while transport.requests("POST", "/api/v1/auth/refresh").isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        try await client.signIn(with: AppleCredential(identityToken: "apple-token"))
        _ = try? await refresh.value
        #expect(try await client.validTokens().refreshToken == "refresh-new")
        #expect(await store.load()?.refreshToken == "refresh-new")
    }

    /// A store whose saves fail while `failing` is set.
    actor FlakyStore: TokenStore {
        var tokens: StoredTokens?
        var failing = false
        struct Failure: Error {}
        init(_ tokens: StoredTokens?) { self.tokens = tokens }
        func load() -> StoredTokens? { self.tokens }
        func save(_ tokens: StoredTokens) throws {
            if self.failing, tokens.refreshStartedAt == nil { throw Failure() }
            self.tokens = tokens
        }
        func clear() { self.tokens = nil }
        func fail(_ value: Bool) { self.failing = value }
    }

    @Test func aFailedSaveAfterARotationKeepsTheNewPairReportsItAndSavesItAgain() async throws {
        let gateway = RotatingGateway(clock: self.clock)
        let transport = gateway.transport()
        let store = FlakyStore(try storedTokens(now: self.clock.now))
        let reports = Locked(0)
        let client = makeClient(transport, clock: self.clock, store: store, onTokenStoreFailure: { _ in reports.withLock { $0 += 1 } })
        await store.fail(true)
        #expect(try await client.refreshTokens().refreshToken == "refresh-2")
        #expect(reports.withLock { $0 } == 1)
        #expect(await store.load()?.refreshToken == "refresh-1")  // the store did not take it
        #expect(try await client.validTokens().refreshToken == "refresh-2")  // memory did
        await store.fail(false)
        _ = try await client.favoritesPage()
        #expect(await store.load()?.refreshToken == "refresh-2")
        #expect(gateway.reused.withLock { $0 } == 0)
    }

    @Test func cancellingATaskCancelsItsRequestAndThrowsCancellationError() async throws {
        let cancelled = Locked(false)
        let transport = StubTransport { _ in
            do { try await Task.sleep(for: .seconds(30)) } catch { cancelled.withLock { $0 = true }; throw error }
            return Reply.json(200, ["items": [], "next_cursor": NSNull()])
        }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        let call = Task { try await client.favoritesPage() }
        while transport.requests.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(cancelled.withLock { $0 })
        #expect(transport.requests.count == 1)  // not retried
    }

    @Test func aPagingLoopStopsWhenItsTaskIsCancelled() async throws {
        let transport = StubTransport { request in
            Reply.json(200, ["items": [ContentTests.favorite("a")], "next_cursor": "more"])
        }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        let loop = Task {
            var seen = 0
            for try await _ in client.favorites() {
                seen += 1
                if seen == 3 { withUnsafeCurrentTask { $0?.cancel() } }
            }
            return seen
        }
        await #expect(throws: CancellationError.self) { try await loop.value }
        #expect(transport.requests.count == 3)
    }

    @Test(arguments: [true, false])
    func a429Or503IsWaitedOutForIdempotentCallsOnlyWithOrWithoutABody(jsonBody: Bool) async throws {
        let calls = Locked(0)
        let transport = StubTransport { request in
            if calls.withLock({ $0 += 1; return $0 }) % 2 == 1 {
                let status = request.method == "PUT" ? 503 : 429
                if jsonBody { return Reply.error(status, status == 429 ? "rate_limited" : "service_unavailable", headers: ["Retry-After": "0"]) }
                return HTTPResponse(status: status, headers: ["Retry-After": "0", "Content-Type": "text/html"], body: Data("<h1>busy</h1>".utf8))
            }
            if request.url.path.hasSuffix("/toggle") { return Reply.json(200, ["item_id": "a", "favorited": true]) }
            return Reply.json(200, ContentTests.favorite("a"))
        }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        #expect(try await client.favorite("a").itemID == "a")
        #expect(transport.requests("PUT", "/api/v1/favorites/a").count == 2)
        await #expect {
            try await client.toggleFavorite("a")
        } throws: { error in
            guard case LatchkeyError.rateLimited(let detail, let retryAfter) = error else { return false }
            return retryAfter == 0 && detail.retryAfter == 0
        }
        #expect(transport.requests("POST", "/api/v1/favorites/a/toggle").count == 1)
    }

    @Test func noAnswerToAnIdempotentCallIsRetriedButNotToAToggle() async throws {
        let transport = StubTransport { _ in throw URLError(.networkConnectionLost) }
        let client = makeClient(transport, clock: self.clock, store: InMemoryTokenStore(try storedTokens(now: self.clock.now)))
        await #expect(throws: LatchkeyError.self) { try await client.markRead("a") }
        #expect(transport.requests("PUT", "/api/v1/read/a").count == 3)
        await #expect(throws: LatchkeyError.self) { try await client.toggleFavorite("a") }
        #expect(transport.requests("POST", "/api/v1/favorites/a/toggle").count == 1)
    }
}
