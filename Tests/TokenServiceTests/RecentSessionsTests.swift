import Foundation
import Testing
@testable import TokenService

/// `RecentSessions`: a token's session is found by its hash once, never by another hash.
@Suite struct RecentSessionsTests {
    private func facts(_ admin: Bool = false) -> AccessTokenIssuer.SessionFacts {
        AccessTokenIssuer.SessionFacts(
            sessionID: UUID(), userID: UUID(), isAdmin: admin, expiresAt: Date(timeIntervalSince1970: 2_000_000_000))
    }

    private func hash(_ seed: UInt8) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: Int($0) &* 7 &+ Int(seed)) } }

    @Test func aRememberedSessionIsTakenOnceByItsHash() {
        let sessions = RecentSessions()
        let session = self.facts(true)
        sessions.remember(session, forTokenHash: self.hash(1))
        let taken = sessions.take(tokenHash: self.hash(1))
        #expect(taken?.sessionID == session.sessionID)
        #expect(taken?.userID == session.userID)
        #expect(taken?.isAdmin == true)
        #expect(sessions.take(tokenHash: self.hash(1)) == nil)
        #expect(sessions.count == 0)
    }

    @Test func aHashThatDiffersInAnyByteFindsNothing() {
        let sessions = RecentSessions()
        sessions.remember(self.facts(), forTokenHash: self.hash(1))
        for index in 0..<32 {
            var other = self.hash(1)
            other[index] ^= 0x80
            #expect(sessions.take(tokenHash: other) == nil, "byte \(index)")
        }
        #expect(sessions.count == 1)
    }

    @Test func onlySHA256SizedHashesAreRemembered() {
        let sessions = RecentSessions()
        sessions.remember(self.facts(), forTokenHash: Array(self.hash(1).prefix(31)))
        sessions.remember(self.facts(), forTokenHash: self.hash(1) + [0])
        #expect(sessions.count == 0)
        #expect(sessions.take(tokenHash: []) == nil)
    }

    @Test func aFullCacheIsDroppedWhole() {
        let sessions = RecentSessions(capacity: 3)
        for seed in 0..<3 { sessions.remember(self.facts(), forTokenHash: self.hash(UInt8(seed))) }
        #expect(sessions.count == 3)
        sessions.remember(self.facts(), forTokenHash: self.hash(9))
        #expect(sessions.count == 1)
        #expect(sessions.take(tokenHash: self.hash(0)) == nil)
        #expect(sessions.take(tokenHash: self.hash(9)) != nil)
    }
}
