import Foundation
import IdentityAPI
import IdentityService
import MockIdentityProvider
import ServiceProtocol
import Testing

@Suite struct UserAdministrationTests {
    @Test func getUserShowsEveryIdentity() async throws {
        try await IdentityHarness.run { harness in
            let email = uniqueEmail()
            let appleSubject = uniqueSubject()
            let user = try await harness.signInApple(subject: appleSubject, email: email).user
            _ = try await harness.signInGoogle(subject: uniqueSubject(), email: email)
            let fetched = try await harness.getUser(user.id)
            #expect(fetched.identities?.map(\.provider) == [.apple, .google])
            #expect(fetched.identities?.first?.subject == appleSubject)
            #expect(fetched.identities?.first?.email == email)
        }
    }

    @Test func anUnknownUserIsNotFound() async throws {
        try await IdentityHarness.run { harness in
            await expectRPCError(.notFound) { _ = try await harness.getUser(UUID()) }
            await expectRPCError(.notFound) {
                _ = try await harness.client.call(
                    Identity.setActive, SetActiveParams(userID: UUID(), active: false))
            }
        }
    }

    @Test func listUsersFindsByEmailAndPagesNewestFirst() async throws {
        try await IdentityHarness.run { harness in
            let tag = "list-\(UUID().uuidString.prefix(8).lowercased())"
            var created: [UUID] = []
            for index in 0..<5 {
                let result = try await harness.signInApple(subject: uniqueSubject(), email: "\(tag)-\(index)@example.com")
                created.append(result.user.id)
            }
            var seen: [UUID] = []
            var cursor: String?
            repeat {
                let page = try await harness.client.call(
                    Identity.listUsers, ListUsersParams(query: tag, limit: 2, cursor: cursor))
                #expect(page.users.count <= 2)
                seen += page.users.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == created.reversed())
            let byID = try await harness.client.call(
                Identity.listUsers, ListUsersParams(query: created[0].uuidString))
            #expect(byID.users.map(\.id) == [created[0]])
        }
    }

    /// Two users whose addresses a wildcard would both match: `_` and `%` in the query match
    /// only themselves.
    @Test func listUsersTreatsLikeWildcardsAsText() async throws {
        try await IdentityHarness.run { harness in
            let tag = "like-\(UUID().uuidString.prefix(8).lowercased())"
            let underscore = try await harness.signInApple(subject: uniqueSubject(), email: "\(tag)_x@example.com").user
            let letter = try await harness.signInApple(subject: uniqueSubject(), email: "\(tag)ax@example.com").user
            func found(_ query: String) async throws -> Set<UUID> {
                Set(try await harness.client.call(Identity.listUsers, ListUsersParams(query: query)).users.map(\.id))
            }
            // The control: both match the plain tag.
            #expect(try await found(tag) == [underscore.id, letter.id])
            // `_` as a wildcard would match "a" too; as text, only the address that holds it.
            #expect(try await found("\(tag)_x") == [underscore.id])
            // `%` as a wildcard would match both; as text, neither holds it.
            #expect(try await found("\(tag)%x").isEmpty)
            #expect(try await found("%_%no-such-user-\(UUID())").isEmpty)
        }
    }

    @Test func listUsersRejectsABadLimitOrCursor() async throws {
        try await IdentityHarness.run { harness in
            await expectRPCError(.badRequest) {
                _ = try await harness.client.call(Identity.listUsers, ListUsersParams(limit: 0))
            }
            await expectRPCError(.badRequest) {
                _ = try await harness.client.call(
                    Identity.listUsers, ListUsersParams(cursor: "not-a-cursor"))
            }
        }
    }

    /// `query` is at most 256 characters as sent (code points, as openapi.yaml's `maxLength`
    /// counts them), whatever trimming its spaces would leave.
    @Test func listUsersRejectsAQueryOverTheLimitAsSent() async throws {
        try await IdentityHarness.run { harness in
            let atLimit = try await harness.client.call(
                Identity.listUsers, ListUsersParams(query: String(repeating: "q", count: 256)))
            #expect(atLimit.users.isEmpty)
            for query in [
                String(repeating: "q", count: 257), "\u{91}" + String(repeating: "\t", count: 256),
                String(repeating: "e\u{301}", count: 129),
            ] {
                await expectRPCError(.badRequest) {
                    _ = try await harness.client.call(Identity.listUsers, ListUsersParams(query: query))
                }
            }
        }
    }

    @Test func deletingAUserRemovesItsIdentitiesAndIsIdempotent() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject).user
            let deleted = try await harness.client.call(
                Identity.deleteUser, DeleteUserParams(userID: user.id))
            #expect(deleted.deleted)
            await expectRPCError(.notFound) { _ = try await harness.getUser(user.id) }
            let again = try await harness.client.call(
                Identity.deleteUser, DeleteUserParams(userID: user.id))
            #expect(!again.deleted)
            let fresh = try await harness.signInApple(subject: subject)
            #expect(fresh.isNewUser && fresh.user.id != user.id)
        }
    }
}
