import Crypto
import Foundation
import Postgres
import ServiceKit
import ServiceProtocol
import Testing
import TextCoding
@testable import TokenService
import TokensAPI

/// Refresh rotation: one compare-and-set, the grace window, reuse detection, session lifetime.
@Suite struct RotationTests {
    @Test func refreshRotatesAndTheOldTokenWithinGraceGetsTheIdenticalPair() async throws {
        try await TokensHarness.run { tokens in
            let issued = try await tokens.issue()
            let first = try await tokens.refresh(issued.refreshToken)
            #expect(first.refreshToken != issued.refreshToken)
            #expect(first.sessionID == issued.sessionID)
            tokens.clock.advance(by: 9)
            let retried = try await tokens.refresh(issued.refreshToken)
            #expect(retried == first)
            let next = try await tokens.refresh(first.refreshToken)
            #expect(next.refreshToken != first.refreshToken)
            #expect(try await tokens.verify(next.accessToken).sessionID == issued.sessionID)
        }
    }

    @Test func fiftyConcurrentRefreshesOfOneTokenRotateExactlyOnce() async throws {
        try await TokensHarness.run { tokens in
            let issued = try await tokens.issue()
            let pairs = try await Self.refreshConcurrently(tokens, issued.refreshToken, count: 50, replicas: 1)
            #expect(Set(pairs).count == 1)
            #expect(try await Self.generations(tokens, session: issued.sessionID) == [0, 1])
        }
    }

    @Test func fiftyConcurrentRefreshesAcrossTwoReplicasRotateExactlyOnce() async throws {
        try await TokensHarness.run(replicas: 2) { tokens in
            let issued = try await tokens.issue(on: 1)
            let pairs = try await Self.refreshConcurrently(tokens, issued.refreshToken, count: 50, replicas: 2)
            #expect(Set(pairs).count == 1)
            #expect(try await Self.generations(tokens, session: issued.sessionID) == [0, 1])
            // Either replica verifies what the other signed.
            #expect(try await tokens.verify(pairs[0].accessToken, on: 0).sessionID == issued.sessionID)
            #expect(try await tokens.verify(pairs[0].accessToken, on: 1).sessionID == issued.sessionID)
        }
    }

    @Test func rotatedTokenReusedAfterGraceRevokesEveryGenerationOfTheSession() async throws {
        try await TokensHarness.run { tokens in
            let generation0 = try await tokens.issue()
            let generation1 = try await tokens.refresh(generation0.refreshToken)
            let generation2 = try await tokens.refresh(generation1.refreshToken)
            tokens.clock.advance(by: 10.5)
            #expect(await tokens.errorCode { try await tokens.refresh(generation0.refreshToken) } == .refreshTokenReused)
            #expect(await tokens.errorCode { try await tokens.refresh(generation1.refreshToken) } == .invalidRefreshToken)
            #expect(await tokens.errorCode { try await tokens.refresh(generation2.refreshToken) } == .invalidRefreshToken)
            for pair in [generation0, generation1, generation2] {
                #expect(await tokens.errorCode { try await tokens.verify(pair.accessToken) } == .sessionRevoked)
            }
            let key = RevocationKeys.session(generation0.sessionID)
            #expect(try await tokens.redis.command(["GET", key]).stringValue == "refresh_token_reused")
            let rows = try await tokens.postgres.query(
                "SELECT revoke_reason FROM tokens.sessions WHERE id = $1", [.uuid(generation0.sessionID)])
            #expect(try rows.first?.decode("revoke_reason", as: String?.self) == "refresh_token_reused")
        }
    }

    @Test func garbageUnknownOrMalformedRefreshTokensAreInvalid() async throws {
        try await TokensHarness.run { tokens in
            for token in ["", "garbage", String(repeating: "A", count: 43), RefreshToken().text, String(repeating: "A", count: 500)] {
                #expect(await tokens.errorCode { try await tokens.refresh(token) } == .invalidRefreshToken)
            }
        }
    }

    @Test func sessionNeverOutlivesTheRefreshTokenTTL() async throws {
        try await TokensHarness.run(environment: ["REFRESH_TOKEN_TTL": "600", "ACCESS_TOKEN_TTL": "300"]) { tokens in
            let issued = try await tokens.issue()
            #expect(issued.expiresIn == 300)
            tokens.clock.advance(by: 400)
            let refreshed = try await tokens.refresh(issued.refreshToken)
            // The access token is cut to the session's end, 200 s away.
            #expect(refreshed.expiresIn <= 200 && refreshed.expiresIn >= 199)
            #expect(refreshed.refreshExpiresAt == issued.refreshExpiresAt)
            tokens.clock.advance(by: 201)
            #expect(await tokens.errorCode { try await tokens.refresh(refreshed.refreshToken) } == .invalidRefreshToken)
            #expect(await tokens.errorCode { try await tokens.verify(refreshed.accessToken) } == .tokenExpired)
        }
    }

    @Test func theSealingKeyIsRFC5869HKDFOfTheToken() throws {
        for _ in 0..<20 {
            let token = RefreshToken()
            let derived = HKDF<SHA256>.deriveKey(
                inputKeyMaterial: SymmetricKey(data: try #require(Base64URL.decode(token.text))),
                salt: Data("latchkey.tokens".utf8), info: Data("refresh successor v1".utf8), outputByteCount: 32)
            #expect(token.sealingKey == derived)
        }
    }

    @Test func successorIsStoredOnlySealedAndOpensOnlyWithThePresentedToken() async throws {
        try await TokensHarness.run { tokens in
            let issued = try await tokens.issue()
            let successor = try await tokens.refresh(issued.refreshToken)
            let presented = try #require(RefreshToken(presented: issued.refreshToken))
            let rows = try await tokens.postgres.query(
                "SELECT successor_sealed FROM tokens.refresh_tokens WHERE hash = $1", [.bytea(presented.hash)])
            let sealed = try #require(try rows.first?.decode("successor_sealed", as: [UInt8]?.self))
            let text = String(decoding: sealed, as: UTF8.self)
            #expect(!text.contains(successor.refreshToken) && !text.contains(successor.accessToken.prefix(20)))
            #expect(presented.open(sealed) == successor)
            #expect(RefreshToken().open(sealed) == nil)
            // No column holds a token in plaintext: the successor's row is keyed by its hash.
            let successorHash = try #require(RefreshToken(presented: successor.refreshToken)).hash
            let successorRows = try await tokens.postgres.query(
                "SELECT generation FROM tokens.refresh_tokens WHERE hash = $1", [.bytea(successorHash)])
            #expect(try successorRows.first?.decode("generation", as: Int.self) == 1)
        }
    }

    @Test func aReplicaRotatesTheTokensItHandedOutFromTheSessionItRemembers() async throws {
        try await TokensHarness.run(replicas: 2) { tokens in
            let remembered = { (replica: Int) in tokens.instances[replica].recentSessions.count }
            let generation0 = try await tokens.issue(on: 0)
            #expect(remembered(0) == 1 && remembered(1) == 0)
            // Handed out by replica 0, refreshed on 1: read from its row; 1 remembers the successor.
            let generation1 = try await tokens.refresh(generation0.refreshToken, on: 1)
            #expect(remembered(1) == 1)
            // Handed out by 1, refreshed on 0: 0 drops nothing it did not know.
            let generation2 = try await tokens.refresh(generation1.refreshToken, on: 0)
            #expect(remembered(0) == 2)
            // Handed out by 0, refreshed on 0: the remembered session is taken and its successor kept.
            let generation3 = try await tokens.refresh(generation2.refreshToken, on: 0)
            #expect(remembered(0) == 2)
            #expect(try await Self.generations(tokens, session: generation0.sessionID) == [0, 1, 2, 3])
            for pair in [generation1, generation2, generation3] {
                #expect(pair.sessionID == generation0.sessionID)
                #expect(try await tokens.verify(pair.accessToken, on: 1).sessionID == generation0.sessionID)
            }
            // Within the grace window, the token rotated from memory gives the identical pair.
            #expect(try await tokens.refresh(generation2.refreshToken, on: 0) == generation3)
            #expect(try await tokens.refresh(generation2.refreshToken, on: 1) == generation3)
        }
    }

    @Test func aRememberedSessionRevokedOrEndedIsNotRotated() async throws {
        try await TokensHarness.run(environment: ["REFRESH_TOKEN_TTL": "600", "ACCESS_TOKEN_TTL": "300"]) { tokens in
            let user = UUID()
            let revoked = try await tokens.issue(user)
            let ended = try await tokens.issue(user)
            #expect(try await tokens.client.call(Tokens.revoke, RevokeParams(userID: user, sessionID: revoked.sessionID)).revoked)
            try await Self.expectRefused(revoked, tokens)
            tokens.clock.advance(by: 601)
            try await Self.expectRefused(ended, tokens)
        }
    }

    /// The refresh of `pair`'s token is refused and leaves the token as it was: not rotated, no successor.
    static func expectRefused(_ pair: TokenPair, _ tokens: TokensHarness) async throws {
        #expect(await tokens.errorCode { try await tokens.refresh(pair.refreshToken) } == .invalidRefreshToken)
        let hash = try #require(RefreshToken(presented: pair.refreshToken)).hash
        let rows = try await tokens.postgres.query(
            "SELECT rotated_at IS NULL AS unrotated FROM tokens.refresh_tokens WHERE hash = $1", [.bytea(hash)])
        #expect(try rows.first?.decode("unrotated", as: Bool.self) == true)
        #expect(try await Self.generations(tokens, session: pair.sessionID) == [0])
    }

    static func refreshConcurrently(_ tokens: TokensHarness, _ token: String, count: Int, replicas: Int) async throws -> [TokenPair] {
        try await withThrowingTaskGroup(of: TokenPair.self) { group in
            for index in 0..<count {
                group.addTask { try await tokens.refresh(token, on: index % replicas) }
            }
            var pairs: [TokenPair] = []
            for try await pair in group { pairs.append(pair) }
            return pairs
        }
    }

    static func generations(_ tokens: TokensHarness, session: UUID) async throws -> [Int] {
        try await tokens.postgres.query(
            "SELECT generation FROM tokens.refresh_tokens WHERE session_id = $1 ORDER BY generation", [.uuid(session)]
        ).map { try $0.decode("generation") }
    }
}
