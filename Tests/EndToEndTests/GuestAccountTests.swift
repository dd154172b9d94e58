import Foundation
import TestSupport
import Testing

/// Guest accounts through the real stack (DESIGN.md section 9.1): a guest made without a
/// provider uses the API like anyone.
@Suite("End to end: guest accounts", .timeLimit(.minutes(8)))
struct GuestAccountTests {
    @Test func guestGetsASessionAndUsesEveryRoute() async throws {
        try await Stack.with { stack in
            let reply = try await stack.request("POST", "/api/v1/auth/guest", body: ["device_name": "phone"])
            #expect(reply.status == 200)
            #expect(reply.header("Cache-Control") == "no-store")
            #expect(reply.json["is_new_user"] as? Bool == true)
            let user = try #require(reply.json["user"] as? [String: Any])
            #expect(user["is_guest"] as? Bool == true)
            #expect(user["providers"] as? [String] == [])
            let guest = try Session(reply.json)

            let put = try await stack.request("PUT", "/api/v1/favorites/a", body: ["nickname": "n"], token: guest.accessToken)
            #expect(put.status == 200)
            #expect(try await stack.request("PUT", "/api/v1/read/b", token: guest.accessToken).status == 200)
            #expect(try await stack.request("PUT", "/api/v1/unlikes/c", token: guest.accessToken).status == 200)
            let changes = try await stack.request("GET", "/api/v1/state/changes", token: guest.accessToken)
            #expect((changes.json["changes"] as? [Any])?.count == 3)
            let me = try await stack.request("GET", "/api/v1/auth/me", token: guest.accessToken)
            #expect(me.json["is_guest"] as? Bool == true)
            let sessions = try await stack.request("GET", "/api/v1/auth/sessions", token: guest.accessToken)
            #expect((sessions.json["sessions"] as? [[String: Any]])?.first?["device_name"] as? String == "phone")
            let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": guest.refreshToken])
            #expect(refreshed.status == 200)
            #expect((refreshed.json["user"] as? [String: Any])?["is_guest"] as? Bool == true)

            // No body at all is a guest too; a signed-in user is no guest.
            let bare = try await stack.request("POST", "/api/v1/auth/guest")
            #expect(bare.status == 200)
            #expect(try Session(bare.json).userID != guest.userID)
            let apple = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")])
            #expect((apple.json["user"] as? [String: Any])?["is_guest"] as? Bool == false)
            #expect(try await stack.metrics("gateway").contains(#"gateway_guest_accounts_total{event="created"} 2"#))
        }
    }

    @Test func signInWithAnUnknownIdentityUpgradesTheGuestInPlace() async throws {
        try await Stack.with { stack in
            let guest = try await Self.guest(stack)
            #expect(try await stack.request("PUT", "/api/v1/favorites/kept", token: guest.accessToken).status == 200)
            let subject = "apple-\(UUID().uuidString)"
            let body: [String: Any] = ["identity_token": try await stack.appleToken(subject: subject), "device_name": "phone"]
            let upgrade = try await stack.request("POST", "/api/v1/auth/apple", body: body, token: guest.accessToken)
            #expect(upgrade.status == 200)
            #expect(upgrade.json["upgraded_guest"] as? Bool == true)
            #expect(upgrade.json["merged_guest"] == nil)
            let user = try #require(upgrade.json["user"] as? [String: Any])
            #expect(user["id"] as? String == guest.userID)
            #expect(user["is_guest"] as? Bool == false)
            #expect(user["providers"] as? [String] == ["apple"])
            // The guest's session goes on, with its state.
            let favorites = try await stack.request("GET", "/api/v1/favorites", token: guest.accessToken)
            #expect((favorites.json["items"] as? [[String: Any]])?.map { $0["item_id"] as? String } == ["kept"])
            // A repeat (lost answer) answers the same upgrade.
            let again = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: subject)],
                token: guest.accessToken)
            #expect(again.status == 200)
            #expect(again.json["upgraded_guest"] as? Bool == true)
            #expect(try Session(again.json).userID == guest.userID)
            // Apple alone now signs into that user.
            #expect(try await stack.signInApple(subject: subject).userID == guest.userID)

            // A bearer that is not a guest's is refused, an invalid one too: never ignored.
            let notGuest = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")],
                token: guest.accessToken)
            #expect(notGuest.status == 400)
            #expect(notGuest.errorCode == "bad_request")
            let invalid = try await stack.request(
                "POST", "/api/v1/auth/google", body: ["id_token": try await stack.googleToken(subject: "g-\(UUID().uuidString)")],
                token: "not.a.token")
            #expect(invalid.status == 401)
            #expect(invalid.errorCode == "unauthorized")
            let loggedOut = try await Self.guest(stack)
            #expect(try await stack.request("POST", "/api/v1/auth/logout", token: loggedOut.accessToken).status == 204)
            let revoked = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")],
                token: loggedOut.accessToken)
            #expect(revoked.status == 401)
            #expect(revoked.errorCode == "session_revoked")
        }
    }

    @Test func linkingUpgradesAGuestAndRefusesAKnownIdentity() async throws {
        try await Stack.with { stack in
            let guest = try await Self.guest(stack)
            let subject = "google-\(UUID().uuidString)"
            let link = try await stack.request(
                "POST", "/api/v1/auth/identities/google", body: ["id_token": try await stack.googleToken(subject: subject)],
                token: guest.accessToken)
            #expect(link.status == 200)
            #expect(link.json["id"] as? String == guest.userID)
            #expect(link.json["is_guest"] as? Bool == false)
            #expect(link.json["providers"] as? [String] == ["google"])
            let me = try await stack.request("GET", "/api/v1/auth/me", token: guest.accessToken)
            #expect(me.json["is_guest"] as? Bool == false)

            let other = try await Self.guest(stack)
            let taken = try await stack.request(
                "POST", "/api/v1/auth/identities/google", body: ["id_token": try await stack.googleToken(subject: subject)],
                token: other.accessToken)
            #expect(taken.status == 409)
            #expect(taken.errorCode == "identity_already_linked")
            let still = try await stack.request("GET", "/api/v1/auth/me", token: other.accessToken)
            #expect(still.json["is_guest"] as? Bool == true)
        }
    }

    @Test func signInWithAKnownIdentityMergesTheGuestIntoThatAccountOnce() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            let owner = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("PUT", "/api/v1/favorites/both", body: ["nickname": "mine"], token: owner.accessToken).status == 200)
            let feed = try await stack.request("GET", "/api/v1/state/changes", token: owner.accessToken)
            let cursor = try #require(feed.json["next_cursor"] as? String)

            let guest = try await Self.guest(stack)
            for path in ["/api/v1/favorites/both", "/api/v1/favorites/guest", "/api/v1/read/guest", "/api/v1/unlikes/other"] {
                #expect(try await stack.request("PUT", path, token: guest.accessToken).status == 200)
            }
            let traces = try await DeletionOracle.Traces.of(user: guest.userID)
            let body: [String: Any] = ["identity_token": try await stack.appleToken(subject: subject)]
            let merge = try await stack.request("POST", "/api/v1/auth/apple", body: body, token: guest.accessToken)
            #expect(merge.status == 200)
            #expect(try Session(merge.json).userID == owner.userID)
            #expect(merge.json["upgraded_guest"] == nil)
            let counts = try #require(merge.json["merged_guest"] as? [String: Int])
            // "both" was the owner's first, with its nickname: it stays as it was.
            #expect(counts == ["favorites": 1, "read": 1, "unlikes": 1])

            // The guest is gone: its token is revoked, the owner's devices see what it merged.
            let spent = try await stack.request("GET", "/api/v1/favorites", token: guest.accessToken)
            #expect(spent.errorCode == "session_revoked")
            let changes = try await stack.request("GET", "/api/v1/state/changes?since=\(cursor)", token: owner.accessToken)
            let items = (changes.json["changes"] as? [[String: Any]] ?? []).compactMap { $0["item_id"] as? String }
            #expect(Set(items) == ["guest", "other"])
            let favorites = try await stack.request("GET", "/api/v1/favorites", token: owner.accessToken)
            let both = (favorites.json["items"] as? [[String: Any]])?.first { $0["item_id"] as? String == "both" }
            #expect(both?["nickname"] as? String == "mine")

            // A repeat (the answer lost): the same counts, nothing merged twice.
            let again = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: subject)],
                token: guest.accessToken)
            #expect(again.status == 200)
            #expect(try Session(again.json).userID == owner.userID)
            #expect(again.json["merged_guest"] as? [String: Int] == counts)
            let unchanged = try await stack.request("GET", "/api/v1/state/changes?since=\(cursor)", token: owner.accessToken)
            #expect((unchanged.json["changes"] as? [Any])?.count == 2)
            // Another identity cannot spend the guest's token again.
            let other = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")],
                token: guest.accessToken)
            #expect(other.errorCode == "session_revoked")
            #expect(try await stack.metrics("gateway").contains(#"gateway_guest_accounts_total{event="merged"} 2"#))

            try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
        }
    }

    @Test func guestsUnusedForTheirTimeToLiveAreDeleted() async throws {
        // Sweeps every second; a guest is unused after 6 s without a refresh.
        try await Stack.with(gatewayEnvironment: ["GUEST_TTL": "6"]) { stack in
            let idle = try await Self.guest(stack)
            #expect(try await stack.request("PUT", "/api/v1/favorites/idle", token: idle.accessToken).status == 200)
            let active = try await Self.guest(stack)
            let upgraded = try await Self.guest(stack)
            let body: [String: Any] = ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")]
            #expect(try await stack.request("POST", "/api/v1/auth/apple", body: body, token: upgraded.accessToken).status == 200)
            let traces = try await DeletionOracle.Traces.of(user: idle.userID)
            try await Task.sleep(for: .seconds(3))
            let refreshed = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": active.refreshToken])
            #expect(refreshed.status == 200)
            let activeNow = try Session(refreshed.json)

            try await waitUntil("the idle guest is deleted", timeout: .seconds(30), interval: .milliseconds(200)) {
                try await stack.request("GET", "/api/v1/auth/me", token: idle.accessToken).errorCode == "session_revoked"
            }
            // The guest refreshed 3 s in is kept for 6 s more; the upgraded one is no guest.
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: activeNow.accessToken).status == 200)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: upgraded.accessToken).status == 200)
            try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            #expect(try await stack.metrics("gateway").contains(#"gateway_guest_accounts_total{event="expired"}"#))
        }
    }

    @Test func theAdminListShowsAndFiltersGuests() async throws {
        try await Stack.with { stack in
            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
            let admin = ["Cookie": String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])]
            let guest = try await Self.guest(stack)
            let user = try await stack.signInApple()

            let guests = try await stack.request("GET", "/admin/api/users?guest=true&limit=200", headers: admin)
            #expect(guests.status == 200)
            let listed = try #require(guests.json["users"] as? [[String: Any]])
            #expect(listed.allSatisfy { $0["is_guest"] as? Bool == true })
            #expect(listed.contains { $0["id"] as? String == guest.userID })
            let others = try await stack.request("GET", "/admin/api/users?guest=false&limit=200", headers: admin)
            let people = try #require(others.json["users"] as? [[String: Any]])
            #expect(people.allSatisfy { $0["is_guest"] as? Bool == false })
            #expect(people.contains { $0["id"] as? String == user.userID })
            #expect(!people.contains { $0["id"] as? String == guest.userID })
            let bad = try await stack.request("GET", "/admin/api/users?guest=maybe", headers: admin)
            #expect(bad.status == 400)
        }
    }

    @Test func guestCreationCountsInTheSignInLimit() async throws {
        try await Stack.with(gatewayEnvironment: ["RATE_LIMIT_SIGNIN_PER_MIN": "2"]) { stack in
            #expect(try await stack.request("POST", "/api/v1/auth/guest").status == 200)
            let apple = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: "apple-\(UUID().uuidString)")])
            #expect(apple.status == 200)
            let limited = try await stack.request("POST", "/api/v1/auth/guest")
            #expect(limited.status == 429)
            #expect(limited.errorCode == "rate_limited")
            #expect(limited.header("Retry-After") != nil)
        }
    }

    static func guest(_ stack: Stack) async throws -> Session {
        let reply = try await stack.request("POST", "/api/v1/auth/guest")
        guard reply.status == 200 else { throw StackError.unexpected("guest: \(reply.status)") }
        return try Session(reply.json)
    }
}
