import Foundation
import Testing

@testable import LatchkeyClient

/// Guest accounts: `signInAsGuest()`, and a provider's sign-in that sends the guest's token by
/// itself so that the gateway upgrades or merges the guest.
@Suite struct GuestTests {
    let clock = TestClock()

    /// A gateway whose guest route makes a guest, and whose Apple sign-in upgrades the guest of
    /// the bearer it gets (`merge`: merges it instead; `refuse`: refuses the bearer).
    func gateway(merge: Bool = false, refuse: Bool = false) -> StubTransport {
        let clock = self.clock
        return StubTransport { request in
            switch request.url.path {
            case "/api/v1/auth/guest":
                var body = try! JSONSerialization.jsonObject(
                    with: Reply.tokens(access: "guest-access", refresh: "guest-refresh", now: clock.now, isNewUser: true).body)
                    as! [String: Any]
                var user = Reply.userJSON
                user["is_guest"] = true
                user["providers"] = [String]()
                user["email"] = NSNull()
                body["user"] = user
                return Reply.json(200, body, headers: ["Cache-Control": "no-store"])
            case "/api/v1/auth/apple":
                guard request.headers["Authorization"] == "Bearer guest-access" else {
                    return Reply.tokens(access: "plain-access", refresh: "plain-refresh", now: clock.now, isNewUser: false)
                }
                if refuse {
                    return Reply.json(401, ["error": ["code": "session_revoked", "message": "m", "request_id": "r"]])
                }
                var body = try! JSONSerialization.jsonObject(
                    with: Reply.tokens(access: "user-access", refresh: "user-refresh", now: clock.now, isNewUser: false).body)
                    as! [String: Any]
                if merge {
                    body["merged_guest"] = ["favorites": 3, "read": 1, "unlikes": 0]
                } else {
                    body["upgraded_guest"] = true
                }
                return Reply.json(200, body, headers: ["Cache-Control": "no-store"])
            default:
                return Reply.noContent
            }
        }
    }

    @Test func aGuestSignsInAndItsAppleSignInUpgradesItByItself() async throws {
        let transport = self.gateway()
        let client = makeClient(transport, clock: self.clock, deviceName: "phone")
        let guest = try await client.signInAsGuest()
        #expect(guest.user.isGuest)
        #expect(guest.isNewUser)
        #expect(transport.requests.last?.json["device_name"] as? String == "phone")
        #expect(transport.requests.last?.headers["Authorization"] == nil)

        let result = try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(transport.requests.last?.headers["Authorization"] == "Bearer guest-access")
        #expect(result.upgradedGuest)
        #expect(result.mergedGuest == nil)
        #expect(!result.user.isGuest)
        // The next sign-in is no guest's: it carries no bearer.
        _ = try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(transport.requests.last?.headers["Authorization"] == nil)
    }

    @Test func aGuestMergedIntoAnExistingAccountReportsTheCounts() async throws {
        let client = makeClient(self.gateway(merge: true), clock: self.clock)
        try await client.signInAsGuest()
        let result = try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(result.mergedGuest == MergedGuest(favorites: 3, read: 1, unlikes: 0))
        #expect(!result.upgradedGuest)
    }

    @Test func aRefusedGuestTokenSignsInWithoutIt() async throws {
        let transport = self.gateway(refuse: true)
        let client = makeClient(transport, clock: self.clock)
        try await client.signInAsGuest()
        let result = try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(!result.upgradedGuest)
        #expect(transport.requests.suffix(2).map { $0.headers["Authorization"] } == ["Bearer guest-access", nil])
    }
}
