import Foundation
import Postgres
import TestSupport
import Testing
@testable import TokenService
import ServiceProtocol
import TokensAPI

/// Rotations that wait behind each other in a replica's rotation line run as one statement
/// (`RefreshRotation.rotation(count:)`): each is still its own compare-and-set, and every caller
/// gets what it would get alone.
@Suite struct RotationBatchTests {
    /// Refreshes queued behind held places of the line: they rotate together.
    private func queued(
        _ tokens: TokensHarness, _ refreshes: [@Sendable () async throws -> TokenPair]
    ) async throws -> [Result<TokenPair, any Error>] {
        try await tokens.instances[0].rotation.rotations.queued(
            behind: .all, holder: PendingRotation(bindings: []), answer: false, refreshes)
    }

    @Test func refreshesOfDifferentSessionsThatWaitedTogetherEachRotateTheirOwnToken() async throws {
        try await TokensHarness.run { tokens in
            let user = UUID()
            let (a, b, c) = (try await tokens.issue(user), try await tokens.issue(user), try await tokens.issue())
            let revoked = try await tokens.issue(user)
            #expect(try await tokens.client.call(Tokens.revoke, RevokeParams(userID: user, sessionID: revoked.sessionID)).revoked)
            let results = try await queued(tokens, [
                { try await tokens.refresh(a.refreshToken) },
                { try await tokens.refresh(b.refreshToken) },
                // The same token twice in one statement: one rotates, the other reads its result.
                { try await tokens.refresh(a.refreshToken) },
                { try await tokens.refresh(revoked.refreshToken) },
                { try await tokens.refresh(c.refreshToken) },
            ])
            let (a1, b1, a1Again, c1) = (try results[0].get(), try results[1].get(), try results[2].get(), try results[4].get())
            #expect(a1 == a1Again, "the identical successor pair")
            #expect(a1.sessionID == a.sessionID && b1.sessionID == b.sessionID && c1.sessionID == c.sessionID)
            #expect(Set([a1.refreshToken, b1.refreshToken, c1.refreshToken]).count == 3)
            #expect(throws: (any Error).self) { try results[3].get() }
            for pair in [a, b, c] {
                #expect(try await RotationTests.generations(tokens, session: pair.sessionID) == [0, 1])
            }
            #expect(try await RotationTests.generations(tokens, session: revoked.sessionID) == [0])
            // Each successor goes on as any other token.
            for pair in [a1, b1, c1] {
                let next = try await tokens.refresh(pair.refreshToken)
                #expect(next.sessionID == pair.sessionID)
                #expect(try await tokens.verify(next.accessToken).sessionID == pair.sessionID)
            }
        }
    }

    /// A statement that fails leaves nothing of any of its rotations, and each then runs
    /// alone: here two rotations name the same successor hash, so the second's insert breaks
    /// the key and only it fails.
    @Test func aRotationThatFailsFailsAloneAndTheOthersRotate() async throws {
        try await TokensHarness.run { tokens in
            let (a, b) = (try await tokens.issue(), try await tokens.issue())
            let rotation = tokens.instances[0].rotation
            let now = tokens.clock.now
            let successor = RefreshToken()
            var sealed = RawJSON()
            sealed.append(#"{"x":1}"#)
            let pending = try [a, b].map { pair in
                let token = try #require(RefreshToken(presented: pair.refreshToken))
                return PendingRotation(bindings: [
                    .bytea(token.hash), .timestamp(now), .bytea(try token.seal(sealed)), .bytea(successor.hash), .uuid(pair.sessionID),
                ])
            }
            let results = try await rotation.run(pending)
            #expect(try results[0].get() == true)
            #expect(throws: PostgresError.self) { try results[1].get() }
            #expect(try await RotationTests.generations(tokens, session: a.sessionID) == [0, 1])
            #expect(try await RotationTests.generations(tokens, session: b.sessionID) == [0], "nothing of b's rotation stays")
        }
    }

    @Test func theStatementNumbersEachRotationsParameters() {
        let three = RefreshRotation.rotation(count: 3)
        #expect(three.contains("r.hash = $11 AND") && three.contains("(r.session_id = $15) IS TRUE"))
        #expect(three.components(separatedBy: "UNION ALL").count == 3)
        let most = RefreshRotation.rotationsPerStatement
        // Past the line's own limit the statement is written on the spot, the same way.
        #expect(RefreshRotation.rotation(count: most + 1).contains("$\(5 * most + 5)"))
        #expect(RefreshRotation.rotation(count: most) == RefreshRotation.rotation(count: most))
    }
}
