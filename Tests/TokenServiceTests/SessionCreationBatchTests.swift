import AuditTrail
import Foundation
import Postgres
import TestSupport
import Testing
@testable import TokenService
import ServiceProtocol
import TokensAPI

/// Sessions whose creations wait behind each other in a replica's line are created by one
/// statement (`SessionStore.creation(count:)`), and every caller gets what it would get alone.
@Suite struct SessionCreationBatchTests {
    /// Sign-ins queued behind held places of the line: their sessions are created together.
    private func queued(
        _ tokens: TokensHarness, _ issues: [@Sendable () async throws -> TokenPair]
    ) async throws -> [Result<TokenPair, any Error>] {
        try await tokens.instances[0].sessions.creations.queued(
            behind: .all, holder: NewSession(bindings: []), answer: (), issues)
    }

    @Test func sessionsCreatedTogetherAreEachTheirCallersOwn() async throws {
        try await TokensHarness.run { tokens in
            let (user, admin, other) = (UUID(), UUID(), UUID())
            let results = try await queued(tokens, [
                { try await tokens.issue(user, device: "iPhone") },
                { try await tokens.issue(admin, admin: true, device: "iPad") },
                { try await tokens.issue(user, device: nil) },
                { try await tokens.issue(other, device: "Mac") },
            ])
            let pairs = try results.map { try $0.get() }
            #expect(Set(pairs.map(\.sessionID)).count == 4 && Set(pairs.map(\.refreshToken)).count == 4)
            let expected: [(UUID, Bool)] = [(user, false), (admin, true), (user, false), (other, false)]
            for (pair, (owner, isAdmin)) in zip(pairs, expected) {
                let verified = try await tokens.verify(pair.accessToken)
                #expect(verified.userID == owner && verified.sessionID == pair.sessionID && verified.isAdmin == isAdmin)
                #expect(try await RotationTests.generations(tokens, session: pair.sessionID) == [0])
                // The first refresh token rotates as any other: the row and its session are there.
                let next = try await tokens.refresh(pair.refreshToken)
                #expect(next.sessionID == pair.sessionID)
                #expect(try await RotationTests.generations(tokens, session: pair.sessionID) == [0, 1])
            }
            let listed = try await tokens.client.call(Tokens.listSessions, ListSessionsParams(userID: user)).sessions
            #expect(Set(listed.map(\.id)) == [pairs[0].sessionID, pairs[2].sessionID])
            #expect(Set(listed.map(\.deviceName)) == ["iPhone", nil])
        }
    }

    /// A statement that fails leaves nothing of any of its sessions, and each then is created
    /// alone: here two sessions' first tokens have the same hash, so the second's insert breaks
    /// the key and only it fails, without a session row left behind.
    @Test func aCreationThatFailsFailsAloneAndLeavesNoSession() async throws {
        try await TokensHarness.run { tokens in
            let store = tokens.instances[0].sessions
            let now = tokens.clock.now
            let hash = RefreshToken().hash
            let (first, second, third) = (UUID(), UUID(), UUID())
            let pending = [first, second, third].enumerated().map { index, session in
                NewSession(bindings: [
                    .uuid(session), .uuid(UUID()), .bool(false), .text("device"), .timestamp(now),
                    .timestamp(now.addingTimeInterval(3600)), .bytea(index == 2 ? RefreshToken().hash : hash), .null,
                ] + AuditTrail.noSelectBindings)
            }
            let results = try await store.run(pending)
            #expect(throws: Never.self) { try results[0].get() }
            #expect(throws: PostgresError.self) { try results[1].get() }
            #expect(throws: Never.self) { try results[2].get() }
            let rows = try await tokens.postgres.query(
                "SELECT id FROM tokens.sessions WHERE id = ANY(ARRAY[$1, $2, $3]::uuid[])",
                [.uuid(first), .uuid(second), .uuid(third)])
            #expect(Set(try rows.map { try $0.decode("id", as: UUID.self) }) == [first, third], "nothing of the second stays")
            #expect(try await RotationTests.generations(tokens, session: first) == [0])
            #expect(try await RotationTests.generations(tokens, session: third) == [0])
        }
    }

    /// A sign-in's `sign_in` record is made by its session's statement: sessions created
    /// together each get their own record (or none, when the call was no sign-in).
    @Test func signInsCreatedTogetherEachRecordTheirOwnEvent() async throws {
        try await TokensHarness.run { tokens in
            let users = (0..<4).map { _ in UUID() }
            let results = try await queued(tokens, users.enumerated().map { index, user in
                {
                    let facts = index == 2 ? nil : SignInFacts(provider: index == 1 ? "google" : "apple", newUser: index == 0)
                    return try await tokens.clients[0].call(
                        Tokens.issue, IssueParams(userID: user, deviceName: "phone \(index)", signIn: facts))
                }
            })
            let pairs = try results.map { try $0.get() }
            let rows = try await tokens.postgres.query(
                """
                SELECT user_id, session_id, details->>'provider' AS provider, (details->>'new_user')::boolean AS new_user,
                       details->>'device_name' AS device
                FROM tokens.audit_events WHERE type = 'sign_in' AND user_id = ANY($1::uuid[])
                """, [.text("{" + users.map(\.uuidString).joined(separator: ",") + "}")])
            var recorded: [UUID: (UUID, String, Bool, String)] = [:]
            for row in rows {
                recorded[try row.decode("user_id")] = (
                    try row.decode("session_id"), try row.decode("provider"), try row.decode("new_user"), try row.decode("device"))
            }
            #expect(recorded.count == 3, "one record for each sign-in, none for the plain issue")
            #expect(recorded[users[2]] == nil)
            for index in [0, 1, 3] {
                let entry = try #require(recorded[users[index]])
                #expect(entry.0 == pairs[index].sessionID && entry.3 == "phone \(index)")
                #expect(entry.1 == (index == 1 ? "google" : "apple") && entry.2 == (index == 0))
            }
        }
    }

    @Test func theStatementNumbersEachCreationsParameters() {
        let three = SessionStore.creation(count: 3)
        #expect(three.contains("VALUES ($29, $30, $31, $32, $33, $33, $34, $36)") && three.contains("SELECT $35, id, 0, $33 FROM session3"))
        #expect(three.contains("FROM session3 WHERE $37::uuid IS NOT NULL") && three.contains("SELECT $37::uuid, $38::text, $30::uuid, id"))
        #expect(three.components(separatedBy: "UNION ALL").count == 3)
        let most = SessionStore.creationsPerStatement
        let each = SessionStore.parametersPerCreation
        // Past the line's own limit the statement is written on the spot, the same way.
        #expect(SessionStore.creation(count: most + 1).contains("$\(each * most + each)"))
        #expect(SessionStore.creation(count: most) == SessionStore.creation(count: most))
    }
}
