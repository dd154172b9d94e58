import Foundation
import ServiceProtocol
import Testing
import TextCoding
import TokensAPI

/// A session bound to a device's key (DPoP, DESIGN.md section 9.2) in `tokens`: issued with the
/// key's thumbprint, its access tokens say so (`cnf.jkt`, `token_type` DPoP), and its refresh is
/// refused without a proof by that key (the gateway verifies the proof and passes its key).
@Suite struct BoundSessionTests {
    static let key = "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I"

    /// The claims of an access token, unverified.
    static func claims(_ token: String) throws -> [String: Any] {
        let payload = try #require(Base64URL.decode(String(token.split(separator: ".")[1])))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    @Test func aBoundSessionsTokensCarryTheKeyAndItIsListedBound() async throws {
        try await TokensHarness.run { tokens in
            let user = UUID()
            let bound = try await tokens.issue(user, boundTo: Self.key)
            let plain = try await tokens.issue(user)
            #expect(bound.tokenType == "DPoP")
            #expect(plain.tokenType == "Bearer")
            #expect(try Self.claims(bound.accessToken)["cnf"] as? [String: String] == ["jkt": Self.key])
            #expect(try Self.claims(plain.accessToken)["cnf"] == nil)
            #expect(try await tokens.verify(bound.accessToken).dpopJKT == Self.key)
            #expect(try await tokens.verify(plain.accessToken).dpopJKT == nil)
            let listed = try await tokens.client.call(Tokens.listSessions, ListSessionsParams(userID: user)).sessions
            #expect(Dictionary(uniqueKeysWithValues: listed.map { ($0.id, $0.bound) }) == [bound.sessionID: true, plain.sessionID: false])
        }
    }

    @Test func aBoundRefreshNeedsTheKeyAndARefusalSpendsNothing() async throws {
        try await TokensHarness.run(replicas: 2) { tokens in
            let issued = try await tokens.issue(boundTo: Self.key)
            // On the replica that issued it (which remembers the session) and on the other.
            for replica in [0, 1] {
                #expect(await tokens.errorCode { try await tokens.refresh(issued.refreshToken, on: replica) } == .invalidDPoPProof)
                #expect(
                    await tokens.errorCode { try await tokens.refresh(issued.refreshToken, proofKey: "another-key", on: replica) }
                        == .invalidDPoPProof)
            }
            let next = try await tokens.refresh(issued.refreshToken, proofKey: Self.key)
            #expect(next.tokenType == "DPoP")
            #expect(try Self.claims(next.accessToken)["cnf"] as? [String: String] == ["jkt": Self.key])
            // The retry within the grace window needs the key too, and gets the same pair with it.
            tokens.clock.advance(by: 5)
            #expect(await tokens.errorCode { try await tokens.refresh(issued.refreshToken) } == .invalidDPoPProof)
            #expect(try await tokens.refresh(issued.refreshToken, proofKey: Self.key) == next)
            // After it, the old token without the key is refused before reuse is considered: a
            // thief without the key cannot end the session either.
            tokens.clock.advance(by: 60)
            #expect(await tokens.errorCode { try await tokens.refresh(issued.refreshToken) } == .invalidDPoPProof)
            #expect(try await tokens.verify(next.accessToken).sessionID == issued.sessionID)
        }
    }

    @Test func anUnboundSessionIgnoresAProofAndStaysUnbound() async throws {
        try await TokensHarness.run { tokens in
            let issued = try await tokens.issue()
            let next = try await tokens.refresh(issued.refreshToken, proofKey: Self.key)
            #expect(next.tokenType == "Bearer")
            #expect(try Self.claims(next.accessToken)["cnf"] == nil)
        }
    }
}
