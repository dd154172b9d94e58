import AuditAPI
import Foundation
import IdentityAPI
@testable import IdentityService
import Postgres
import ServiceProtocol
import Synchronization
import Testing

/// The user lifecycle feed (DESIGN.md section 9.4): written with each change, read by cursor in
/// commit order.
@Suite(.timeLimit(.minutes(3))) struct EventFeedTests {
    @Test func eachChangeAppendsItsEventInOrder() async throws {
        try await IdentityHarness.run { harness in
            let start = try await Self.end(of: harness)
            let email = uniqueEmail()
            let user = try await harness.signInApple(subject: uniqueSubject(), email: email).user
            _ = try await harness.signInGoogle(subject: uniqueSubject(), email: email)  // linked by email
            _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user.id, active: false))
            _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user.id, active: false))  // no change
            _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user.id, active: true))
            _ = try await harness.client.call(Identity.unlink, UnlinkParams(userID: user.id, provider: .google))
            let revoked = SessionsRevokedParams(id: UUID(), userID: user.id, reason: "logout")
            _ = try await harness.client.call(Identity.eventsSessionsRevoked, revoked)
            _ = try await harness.client.call(Identity.eventsSessionsRevoked, revoked)  // a retry: once
            let guest = try await harness.client.call(Identity.createGuest, Empty())
            _ = try await harness.client.call(Identity.deleteUser, DeleteUserParams(userID: guest.id, by: .merged, mergedInto: user.id))
            _ = try await harness.client.call(Identity.deleteUser, DeleteUserParams(userID: user.id))

            let events = try await Self.read(harness, from: start).filter { [user.id, guest.id].contains($0.userID) }
            // The user's own events went with the deletion; only `user.deleted` is left of them.
            #expect(events.map(\.type) == ["user.deleted"])
            #expect(events.first?.data["by"] == .string("user"))
        }
    }

    @Test func eventsBeforeADeletionAreReadInOrder() async throws {
        try await IdentityHarness.run { harness in
            let start = try await Self.end(of: harness)
            let email = uniqueEmail()
            let user = try await harness.signInApple(subject: uniqueSubject(), email: email).user
            _ = try await harness.signInGoogle(subject: uniqueSubject(), email: email)
            _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user.id, active: false))
            _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user.id, active: true))
            _ = try await harness.client.call(Identity.unlink, UnlinkParams(userID: user.id, provider: .google))
            let guest = try await harness.client.call(Identity.createGuest, Empty())
            _ = try await harness.client.call(Identity.deleteUser, DeleteUserParams(userID: guest.id, by: .merged, mergedInto: user.id))
            let events = try await Self.read(harness, from: start).filter { $0.userID == user.id }
            #expect(
                events.map(\.type) == [
                    "user.created", "identity.linked", "user.deactivated", "user.activated", "identity.unlinked", "guest.merged",
                ])
            #expect(events.last?.data["guest_id"] == .string(guest.id.uuidString.lowercased()))
            #expect(events.last?.data["target_id"] == .string(user.id.uuidString.lowercased()))
            // Never an email or a name in the feed.
            let text = String(decoding: try JSONEncoder().encode(events), as: UTF8.self)
            #expect(!text.contains(email))
        }
    }

    /// Writers that commit out of the order they started in (one holds its transaction open
    /// after appending) while a reader polls: the reader sees every event once, in the order a
    /// full read afterwards gives, and each user's events in the order they were made.
    @Test func concurrentWritersNeverMakeAReaderSkipOrReorder() async throws {
        try await IdentityHarness.run(environment: ["DATABASE_POOL_SIZE": "12"]) { harness in
            let start = try await Self.end(of: harness)
            let writersDone = Atomic<Bool>(false)
            let users = try await (0..<6).asyncMap { _ in try await harness.client.call(Identity.createGuest, Empty()).id }
            let slowUsers = (0..<3).map { _ in UUID() }

            async let polled: [UserEvent] = {
                var seen: [UserEvent] = []
                var cursor = start
                while true {
                    let done = writersDone.load(ordering: .acquiring)
                    let page = try await harness.client.call(Identity.eventsRead, EventsReadParams(since: cursor, limit: 7))
                    seen += page.events
                    cursor = page.nextCursor
                    if done && !page.hasMore { return seen }
                    if page.events.isEmpty { try await Task.sleep(for: .milliseconds(2)) }
                }
            }()

            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in users {
                    group.addTask {
                        for round in 0..<8 {
                            _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user, active: round % 2 == 1))
                        }
                    }
                }
                for user in slowUsers {
                    group.addTask {
                        // An append whose transaction stays open a while after it: without the
                        // feed's lock, later writers would take higher numbers and commit first.
                        for round in 0..<4 {
                            try await harness.postgres.withTransaction { connection in
                                try await EventFeed.append(.userUpdated, user: user, data: ["round": .int(round)], on: connection)
                                _ = try await connection.query("SELECT pg_sleep(0.03)")
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            writersDone.store(true, ordering: .releasing)
            let mine = Set(users + slowUsers)
            let seen = try await polled.filter { mine.contains($0.userID) }
            let truth = try await Self.read(harness, from: start).filter { mine.contains($0.userID) }

            #expect(seen.count == users.count * 9 + slowUsers.count * 4)
            #expect(seen.map(\.id) == truth.map(\.id))
            #expect(Set(seen.map(\.id)).count == seen.count)
            let cursors = seen.compactMap { Int($0.cursor) }
            #expect(cursors == cursors.sorted())
            for user in users {
                let made = ["user.created"] + (0..<8).map { $0 % 2 == 0 ? "user.deactivated" : "user.activated" }
                #expect(seen.filter { $0.userID == user }.map(\.type) == made)
            }
            for user in slowUsers {
                #expect(seen.filter { $0.userID == user }.map { $0.data["round"] } == (0..<4).map { .int($0) })
            }
        }
    }

    /// The cursor at the feed's end now.
    static func end(of harness: IdentityHarness) async throws -> String? {
        var cursor: String?
        while true {
            let page = try await harness.client.call(Identity.eventsRead, EventsReadParams(since: cursor, limit: 1000))
            cursor = page.nextCursor
            if !page.hasMore { return cursor }
        }
    }

    /// Every event after `cursor`.
    static func read(_ harness: IdentityHarness, from cursor: String?) async throws -> [UserEvent] {
        var events: [UserEvent] = []
        var cursor = cursor
        while true {
            let page = try await harness.client.call(Identity.eventsRead, EventsReadParams(since: cursor, limit: 1000))
            events += page.events
            cursor = page.nextCursor
            if !page.hasMore { return events }
        }
    }
}
