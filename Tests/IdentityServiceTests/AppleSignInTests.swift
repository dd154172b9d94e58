import Foundation
import IdentityAPI
import IdentityService
import MockIdentityProvider
import ServiceProtocol
import Testing

@Suite struct AppleSignInTests {
    @Test func firstSignInCreatesAUserAndTheNextFindsIt() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let email = uniqueEmail()
            let first = try await harness.signInApple(subject: subject, email: email)
            #expect(first.isNewUser)
            #expect(first.user.email == email)
            #expect(first.user.emailVerified)
            #expect(first.user.providers == [.apple])
            #expect(first.user.isActive && !first.user.isAdmin)
            let second = try await harness.signInApple(subject: subject, email: email)
            #expect(!second.isNewUser)
            #expect(second.user.id == first.user.id)
        }
    }

    @Test func emailFlagsAreReadAsStringsOrBooleans() async throws {
        try await IdentityHarness.run { harness in
            let asStrings = try await harness.signInApple(
                subject: uniqueSubject(), email: uniqueEmail(), emailVerified: .string("true"))
            #expect(asStrings.user.emailVerified)
            let unverified = try await harness.signInApple(
                subject: uniqueSubject(), email: uniqueEmail(), emailVerified: .string("false"))
            #expect(!unverified.user.emailVerified)
            let relay = try await harness.signInApple(
                subject: uniqueSubject(), email: "x\(UUID().uuidString.prefix(8))@privaterelay.appleid.com",
                emailVerified: .bool(true), isPrivateEmail: .string("true"))
            let identity = try #require(try await harness.getUser(relay.user.id).identities?.first)
            #expect(identity.isPrivateEmail)
        }
    }

    @Test func theNameFromTheFirstSignInIsKeptAndNeverErased() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let first = try await harness.signInApple(subject: subject, email: uniqueEmail(), fullName: "Ada Lovelace")
            #expect(first.user.displayName == "Ada Lovelace")
            let withoutName = try await harness.signInApple(subject: subject)
            #expect(withoutName.user.displayName == "Ada Lovelace")
            let otherName = try await harness.signInApple(subject: subject, fullName: "Somebody Else")
            #expect(otherName.user.displayName == "Ada Lovelace")
        }
    }

    @Test func aNameGivenAsComponentsIsJoined() async throws {
        try await IdentityHarness.run { harness in
            struct Params: Encodable, Sendable {
                var provider = "apple"
                var identity_token: String
                var full_name: [String: String]
            }
            let token = try await harness.appleToken(subject: uniqueSubject())
            let result = try await harness.client.call(
                Identity.signIn.name,
                Params(identity_token: token, full_name: ["given_name": "Grace", "family_name": "Hopper"]),
                as: SignInResult.self)
            #expect(result.user.displayName == "Grace Hopper")
        }
    }

    @Test func aNameArrivingOnALaterSignInFillsAMissingOne() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let first = try await harness.signInApple(subject: subject)
            #expect(first.user.displayName == nil)
            let later = try await harness.signInApple(subject: subject, fullName: "Late Name")
            #expect(later.user.displayName == "Late Name")
        }
    }

    @Test func userJSONHasTheDocumentedFieldsAndRFC3339Times() async throws {
        try await IdentityHarness.run { harness in
            let token = try await harness.appleToken(subject: uniqueSubject(), email: uniqueEmail())
            let raw = try await harness.client.call(
                Identity.signIn.name, ProviderCredential(provider: .apple, identityToken: token), as: RawJSON.self)
            let user = try #require(raw.object["user"] as? [String: Any])
            #expect(raw.object["is_new_user"] as? Bool == true)
            for key in ["id", "email", "email_verified", "display_name", "is_admin", "is_active", "providers", "created_at", "updated_at"] {
                #expect(user.keys.contains(key), "missing \(key)")
            }
            let created = try #require(user["created_at"] as? String)
            #expect(created.hasSuffix("Z") && created.contains("T"))
        }
    }

    @Test func appleSignInWithoutATokenIsABadRequest() async throws {
        try await IdentityHarness.run { harness in
            await expectRPCError(.badRequest) {
                _ = try await harness.signIn(ProviderCredential(provider: .apple))
            }
        }
    }
}

/// Any JSON result, for checking the wire shape.
struct RawJSON: Decodable, Sendable {
    let data: Data

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer().decode(JSONValue.self)
        self.data = try JSONEncoder().encode(value)
    }

    var object: [String: Any] {
        (try? JSONSerialization.jsonObject(with: self.data) as? [String: Any]) ?? [:]
    }
}

/// A JSON value of any shape.
indirect enum JSONValue: Codable, Sendable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

@Suite struct KnownIdentityTests {
    @Test func aChangedEmailIsRecordedOnTheIdentity() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject, email: uniqueEmail()).user
            let newEmail = uniqueEmail()
            _ = try await harness.signInApple(subject: subject, email: newEmail, emailVerified: .bool(false))
            let identity = try #require(try await harness.getUser(user.id).identities?.first)
            #expect(identity.email == newEmail && !identity.emailVerified)
        }
    }

    @Test func lastSignInIsKeptToTheMinute() async throws {
        try await IdentityHarness.run { harness in
            let subject = uniqueSubject()
            let user = try await harness.signInApple(subject: subject).user
            let first = try #require(try await harness.getUser(user.id).identities?.first?.lastSignInAt)
            _ = try await harness.signInApple(subject: subject)
            #expect(try await harness.getUser(user.id).identities?.first?.lastSignInAt == first)
            _ = try await harness.postgres.execute(
                "UPDATE identity.identities SET last_sign_in_at = now() - interval '2 minutes' WHERE provider = 'apple' AND subject = $1",
                [.text(subject)])
            _ = try await harness.signInApple(subject: subject)
            let later = try #require(try await harness.getUser(user.id).identities?.first?.lastSignInAt)
            #expect(later > first.addingTimeInterval(-1))
            #expect(later.timeIntervalSinceNow > -60)
        }
    }
}
