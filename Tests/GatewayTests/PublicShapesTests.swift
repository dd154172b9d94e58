import ContentStateAPI
import Foundation
import IdentityAPI
import NIOCore
import Testing
import TokensAPI

@testable import Gateway

/// The public API's shapes built from the backends' types (DESIGN.md section 6), and the
/// typed reading of client bodies into backend params.
@Suite struct PublicShapesTests {
    let user = User(
        id: UUID(uuidString: "8D1C6A2E-51B6-4C0B-9F38-1E5C2A7D9B10")!, email: "a@example.com", emailVerified: true,
        displayName: nil, isAdmin: false, isActive: true, providers: [.apple, .google],
        createdAt: Date(timeIntervalSince1970: 1_795_317_839.123), updatedAt: Date(timeIntervalSince1970: 1_795_317_840),
        identities: [
            LinkedIdentity(
                provider: .apple, subject: "001.a", email: "x@privaterelay.appleid.com", emailVerified: true, isPrivateEmail: true,
                emailForwarding: false, createdAt: Date(timeIntervalSince1970: 0), lastSignInAt: Date(timeIntervalSince1970: 0))
        ])

    func object(_ value: some Encodable) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(JSONCoding.encode(value).readableBytesView)) as? [String: Any])
    }

    @Test func thePublicUserLeavesOutActiveAndIdentities() throws {
        let json = try self.object(PublicUser(user: self.user))
        #expect(
            Set(json.keys) == ["id", "email", "email_verified", "display_name", "is_admin", "is_guest", "providers", "created_at", "updated_at"])
        #expect(json["id"] as? String == "8d1c6a2e-51b6-4c0b-9f38-1e5c2a7d9b10")
        #expect(json["display_name"] is NSNull)
        #expect(json["providers"] as? [String] == ["apple", "google"])
        #expect(json["created_at"] as? String == "2026-11-22T03:23:59.123Z")
        #expect(json["updated_at"] as? String == "2026-11-22T03:24:00.000Z")
    }

    /// The gateway's own bodies: slashes as they are, and what the compact encoder cannot
    /// write (a floating-point number) still encoded, by Foundation.
    @Test func bodiesLeaveSlashesUnescapedAndFallBackToFoundation() throws {
        struct Odd: Encodable {
            var url = "https://example.com/a/b"
            var ratio = 0.5
        }
        var user = self.user
        user.displayName = "A/B"
        #expect(String(buffer: try JSONCoding.encode(PublicUser(user: user))).contains(#""display_name":"A/B""#))
        #expect(String(buffer: try JSONCoding.encode(Odd())) == #"{"ratio":0.5,"url":"https://example.com/a/b"}"#)
    }

    @Test func theAdminSeesIdentitysUserWithActiveAndIdentities() throws {
        let json = try self.object(self.user)
        #expect(json["is_active"] as? Bool == true)
        let identities = try #require(json["identities"] as? [[String: Any]])
        #expect(identities.first?["email_forwarding"] as? Bool == false)
    }

    @Test func theTokenResponseCarriesThePairAndThePublicUser() throws {
        let pair = TokenPair(
            accessToken: "a.b.c", tokenType: "Bearer", expiresIn: 900, expiresAt: "2026-11-22T03:38:59.000Z", refreshToken: "r",
            refreshExpiresAt: "2026-12-22T03:23:59.000Z", sessionID: UUID(), userID: self.user.id, isAdmin: false)
        let json = try self.object(TokenResponse(pair: pair, user: self.user, isNewUser: true))
        #expect(
            Set(json.keys) == [
                "access_token", "token_type", "expires_in", "expires_at", "refresh_token", "refresh_expires_at", "user", "is_new_user",
            ])
        #expect((json["user"] as? [String: Any])?["is_active"] == nil)
        #expect(try self.object(TokenResponse(pair: pair, user: self.user, isNewUser: nil))["is_new_user"] == nil)
    }

    /// Sign-in, refresh and `me` write their JSON by hand: byte for byte what the encoder
    /// writes, over absent and present optionals, escapes, slashes, non-ASCII text, every
    /// provider list and negative and fractional times.
    @Test func handWrittenUsersAndTokenResponsesAreTheEncodersBytes() throws {
        var users: [User] = []
        for (index, (email, name)) in [
            (nil, nil), ("a@example.com", "A/B \"quoted\" \\ tab\t"), ("ü@例え.jp", "Zoë 🦊"), ("x@privaterelay.appleid.com", ""),
        ].enumerated() {
            var user = self.user
            user.email = email
            user.displayName = name
            user.emailVerified = index % 2 == 0
            user.isAdmin = index == 3
            user.providers = [[], [.apple], [.google], [.apple, .google]][index]
            user.createdAt = Date(timeIntervalSince1970: [-1.5, 0, 1_795_317_839.1234, 4_102_444_800.999][index])
            users.append(user)
        }
        for (index, user) in users.enumerated() {
            #expect(String(buffer: PublicUser(user: user).rawJSON.bytes) == String(buffer: try JSONCoding.encode(PublicUser(user: user))))
            let pair = TokenPair(
                accessToken: "eyJ.a-b_c.\(index)", tokenType: "Bearer", expiresIn: [900, 0, 86_400, 1][index],
                expiresAt: "2026-11-22T03:38:59.000Z", refreshToken: "r/\\\"\(index)", refreshExpiresAt: "2026-12-22T03:23:59.000Z",
                sessionID: UUID(), userID: user.id, isAdmin: user.isAdmin)
            for isNewUser in [nil, true, false] {
                let response = TokenResponse(pair: pair, user: user, isNewUser: isNewUser)
                #expect(String(buffer: response.rawJSON.bytes) == String(buffer: try JSONCoding.encode(response)))
            }
            // A guest's sign-in: upgraded, or merged with its counts.
            for response in [
                TokenResponse(pair: pair, user: user, isNewUser: false, upgradedGuest: true),
                TokenResponse(pair: pair, user: user, isNewUser: false, mergedGuest: UserContentCounts(favorites: 3, read: 0, unlikes: 10_000)),
            ] {
                #expect(String(buffer: response.rawJSON.bytes) == String(buffer: try JSONCoding.encode(response)))
            }
        }
    }

    @Test func sessionsMarkTheCallersOwn() throws {
        let mine = UUID()
        let list = SessionList(sessions: [
            SessionSummary(id: mine, deviceName: "iPhone", createdAt: "c", lastUsedAt: "l", expiresAt: "e"),
            SessionSummary(id: UUID(), deviceName: nil, createdAt: "c", lastUsedAt: "l", expiresAt: "e"),
        ])
        let sessions = try #require(try self.object(PublicSessions(list, current: mine))["sessions"] as? [[String: Any]])
        #expect(sessions.map { $0["current"] as? Bool } == [true, false])
        #expect(sessions[0]["id"] as? String == mine.uuidString.lowercased())
        #expect(sessions[1]["device_name"] is NSNull)
    }

    @Test func bodyMembersOfTheWrongTypeAreBadRequestsNamingThem() throws {
        let body: JSONObject = ["nickname": .int(3), "position": .string("1"), "item_ids": .array([.string("a"), .int(1)]), "read": "yes"]
        for (read, field) in [
            ({ _ = try body.textUpdate("nickname") } as () throws -> Void, "nickname"),
            ({ _ = try body.integerUpdate("position") }, "position"),
            ({ _ = try body.itemIDs() }, "item_ids"),
            ({ _ = try body.requiredBool("read") }, "read"),
            ({ _ = try body.string("nickname") }, "nickname"),
        ] {
            let error = try #require(throws: APIError.self) { try read() }
            #expect(error.code == .badRequest)
            #expect(error.message.contains(field))
        }
    }

    @Test func updatesKeepClearOrSet() throws {
        let body: JSONObject = ["nickname": .null, "position": .int(7)]
        #expect(try body.textUpdate("nickname") == .set(nil))
        #expect(try body.integerUpdate("position") == .set(7))
        #expect(try body.textUpdate("absent") == .keep)
        #expect(try (["item_ids": .array([])] as JSONObject).itemIDs() == [])
        #expect(throws: APIError.self) { try ([:] as JSONObject).itemIDs() }
    }

    @Test func credentialsAreReadByTheirOwnRules() throws {
        let apple = try AuthRoutes.credential(
            provider: .apple,
            body: ["identity_token": "t", "full_name": .object(["given_name": "Ada", "family_name": "Lovelace"]), "ignored": "x"])
        #expect(apple == ProviderCredential(provider: .apple, identityToken: "t", fullName: "Ada Lovelace"))
        let error = try #require(throws: APIError.self) {
            try AuthRoutes.credential(provider: .apple, body: ["identity_token": "t", "nonce": .int(5)])
        }
        #expect(error.code == .badRequest)
        #expect(error.message == "Invalid type for nonce")
        #expect(throws: APIError.self) { try AuthRoutes.credential(provider: .google, body: ["nonce": "n"]) }
    }

    /// A body of strings (the usual one) is taken as it is, to the credential that decoding the
    /// provider's members gives; any other member type is left to decoding.
    @Test func credentialsOfStringsAreTheDecodedOnes() throws {
        let every: JSONObject = [
            "identity_token": "it", "id_token": "idt", "access_token": "at", "nonce": "n/1", "full_name": " Ann Lee ",
            "email": "a@example.com", "authorization_code": "c", "device_name": "phone", "other": .int(1),
        ]
        let bodies: [JSONObject] = [
            every, ["identity_token": "it"], ["id_token": "idt"], ["access_token": "at", "nonce": ""],
            ["identity_token": "it", "access_token": "at", "full_name": "F"],
        ]
        for provider in IdentityProvider.allCases {
            for body in bodies {
                let text = try #require(AuthRoutes.textCredential(provider: provider, body: body))
                #expect(text == (try AuthRoutes.decodedCredential(provider: provider, body: body)), "\(provider) \(body)")
            }
        }
        #expect(AuthRoutes.textCredential(provider: .apple, body: ["identity_token": "t", "email": .null]) == nil)
        #expect(AuthRoutes.textCredential(provider: .google, body: ["id_token": "t", "nonce": .int(1)]) == nil)
        // A member of the other provider is not looked at.
        #expect(AuthRoutes.textCredential(provider: .google, body: ["id_token": "t", "full_name": .object([:])])?.fullName == nil)
    }
}
