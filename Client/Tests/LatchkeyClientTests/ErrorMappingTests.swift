import Foundation
import Testing

@testable import LatchkeyClient

/// Every code of the gateway's error catalogue becomes its own case, with the status, message
/// and request id; and the failures without a catalogue answer have theirs.
@Suite struct ErrorMappingTests {
    static let catalogue: [(Int, String)] = [
        (400, "bad_request"), (401, "unauthorized"), (401, "token_expired"), (401, "session_revoked"),
        (401, "invalid_identity_token"), (401, "invalid_refresh_token"), (401, "refresh_token_reused"), (403, "forbidden"),
        (403, "user_inactive"), (404, "not_found"), (409, "identity_already_linked"), (409, "last_identity"), (409, "conflict"),
        (413, "payload_too_large"), (415, "unsupported_media_type"), (429, "rate_limited"), (503, "service_unavailable"),
        (500, "internal"), (418, "teapot_of_the_future"),
    ]

    /// The case's name for a code, so that a code mapped to the wrong case fails.
    static func caseName(_ error: LatchkeyError) -> String {
        switch error {
        case .badRequest: "bad_request"
        case .unauthorized: "unauthorized"
        case .tokenExpired: "token_expired"
        case .sessionRevoked: "session_revoked"
        case .invalidIdentityToken: "invalid_identity_token"
        case .invalidRefreshToken: "invalid_refresh_token"
        case .refreshTokenReused: "refresh_token_reused"
        case .forbidden: "forbidden"
        case .userInactive: "user_inactive"
        case .notFound: "not_found"
        case .identityAlreadyLinked: "identity_already_linked"
        case .lastIdentity: "last_identity"
        case .conflict: "conflict"
        case .payloadTooLarge: "payload_too_large"
        case .unsupportedMediaType: "unsupported_media_type"
        case .rateLimited: "rate_limited"
        case .serviceUnavailable: "service_unavailable"
        case .internal: "internal"
        case .other: "other"
        case .unexpectedResponse: "unexpected_response"
        case .notSignedIn: "not_signed_in"
        case .transport: "transport"
        case .decoding: "decoding"
        case .tokenStore: "token_store"
        }
    }

    @Test(arguments: Self.catalogue)
    func everyCatalogueCodeMapsToItsCase(status: Int, code: String) {
        let error = LatchkeyError(response: Reply.error(status, code, requestID: "req-\(code)"))
        #expect(Self.caseName(error) == (code == "teapot_of_the_future" ? "other" : code))
        #expect(error.code == code)
        #expect(error.requestID == "req-\(code)")
        #expect(error.detail == ErrorDetail(status: status, code: code, message: "message of \(code)", requestID: "req-\(code)"))
    }

    @Test func rateLimitedCarriesRetryAfterInSecondsOrAsADate() {
        let seconds = LatchkeyError(response: Reply.error(429, "rate_limited", headers: ["Retry-After": "17"]))
        guard case .rateLimited(_, let retryAfter) = seconds else {
            Issue.record("not rate limited: \(seconds)")
            return
        }
        #expect(retryAfter == 17)
        let now = Date(timeIntervalSince1970: 1_784_000_000)  // 2026-07-14T03:33:20Z
        #expect(LatchkeyError.retryAfter("Tue, 14 Jul 2026 03:34:00 GMT", now: now) == 40)
        #expect(LatchkeyError.retryAfter("soon", now: now) == nil)
        guard case .rateLimited(_, nil) = LatchkeyError(response: Reply.error(429, "rate_limited")) else {
            Issue.record("a 429 without Retry-After")
            return
        }
    }

    @Test func aBodyThatIsNotTheCatalogueShapeIsAnUnexpectedResponse() {
        let error = LatchkeyError(
            response: HTTPResponse(status: 502, headers: ["x-request-id": "from-header"], body: Data("<html>Bad gateway</html>".utf8)))
        guard case .unexpectedResponse(502, "from-header") = error else {
            Issue.record("got \(error)")
            return
        }
        #expect(error.requestID == "from-header")
    }

    @Test func transportAndDecodingFailuresHaveTheirOwnCases() async throws {
        let clock = TestClock()
        let offline = makeClient(StubTransport { _ in throw URLError(.notConnectedToInternet) }, clock: clock)
        await #expect {
            try await offline.signIn(with: .idToken("google-token"))
        } throws: { error in
            guard case LatchkeyError.transport(let underlying as URLError) = error else { return false }
            return underlying.code == .notConnectedToInternet
        }
        let garbled = makeClient(StubTransport { _ in Reply.json(200, ["access_token": 42]) }, clock: clock)
        await #expect {
            try await garbled.signIn(with: .idToken("google-token"))
        } throws: { error in
            guard case LatchkeyError.decoding = error else { return false }
            return true
        }
        #expect(try await garbled.authState() == .signedOut(.notSignedIn))
    }

    @Test func aCallWhileSignedOutIsNotSignedInAndSendsNothing() async throws {
        let transport = StubTransport { _ in Reply.noContent }
        let client = makeClient(transport, clock: TestClock())
        await #expect {
            try await client.state(of: ["a"])
        } throws: { error in
            guard case LatchkeyError.notSignedIn = error else { return false }
            return true
        }
        #expect(transport.requests.isEmpty)
    }
}

/// A token store that fails every call, as a locked Keychain does.
struct FailingTokenStore: TokenStore {
    struct Failure: Error {}
    func load() async throws -> StoredTokens? { throw Failure() }
    func save(_ tokens: StoredTokens) async throws { throw Failure() }
    func clear() async throws { throw Failure() }
}

extension ErrorMappingTests {
    @Test func aFailingTokenStoreIsReportedAndASignInItCannotKeepIsHeldInMemory() async throws {
        let clock = TestClock()
        let reports = Locked<[LatchkeyError]>([])
        let client = makeClient(
            StubTransport { request in
                if request.url.path == "/api/v1/auth/google" { return Reply.tokens(access: "a", refresh: "r", now: clock.now) }
                return Reply.json(200, ["items": [], "next_cursor": NSNull()])
            }, clock: clock, store: FailingTokenStore(), onTokenStoreFailure: { error in reports.withLock { $0.append(error) } })
        let isStoreFailure: @Sendable (any Error) -> Bool = { error in
            guard case LatchkeyError.tokenStore(let underlying) = error else { return false }
            return underlying is FailingTokenStore.Failure
        }
        await #expect(performing: { try await client.authState() }, throws: isStoreFailure)
        // The sign-in is good: the client keeps it in memory, uses it, and reports the store.
        try await client.signIn(with: .idToken("google-token"))
        #expect(try await client.favoritesPage().items.isEmpty)
        #expect(try await client.validTokens().accessToken == "a")
        #expect(reports.withLock { $0.count } == 1)
        #expect(reports.withLock { $0.allSatisfy { isStoreFailure($0) } })
    }
}
