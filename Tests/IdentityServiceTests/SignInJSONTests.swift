import CompactJSON
import Foundation
import IdentityAPI
import ServiceProtocol
import TestSupport
import Testing
import TextCoding

/// A sign-in's messages to and from identity (`ProviderCredential`, `SignInResult` and its
/// `User`) are written and read by hand: the bytes `Codable` writes, and from any spelling the
/// value or the error `JSONDecoder` gives.
@Suite struct SignInJSONTests {
    static let texts = ["plain", "", "a/b", "\"quoted\"\\", "tab\tnew\nline\u{01}", "café☃😀"]

    static let credentials: [ProviderCredential] =
        [
            ProviderCredential(provider: .apple, identityToken: "eyJ.eyJ.sig"),
            ProviderCredential(provider: .google, accessToken: "ya29.a0"),
            ProviderCredential(provider: .google, identityToken: "eyJ.eyJ.sig", accessToken: "ya29", nonce: "n", email: "g@example.com"),
        ]
        + Self.texts.map { text in
            ProviderCredential(
                provider: .apple, identityToken: "t/\(text)", accessToken: text, nonce: text, fullName: text, email: text,
                authorizationCode: text)
        }

    static func users() -> [User] {
        let created = Date(timeIntervalSince1970: 1_795_000_000.123)
        let updated = Date(timeIntervalSince1970: 1_795_000_061.5)
        let identity = LinkedIdentity(
            provider: .apple, subject: "001234.abc/def", email: "x@privaterelay.appleid.com", emailVerified: true, isPrivateEmail: true,
            emailForwarding: false, createdAt: created, lastSignInAt: updated)
        return [
            User(
                id: UUID(), email: nil, emailVerified: false, displayName: nil, isAdmin: false, isActive: true, providers: [],
                createdAt: created, updatedAt: created),
            User(
                id: UUID(), email: "a/b@example.com", emailVerified: true, displayName: "Zoë \"Z\" \\ Test\n", isAdmin: true,
                isActive: false, providers: [.apple, .google], createdAt: Date(timeIntervalSince1970: -86_400.25), updatedAt: updated),
            User(
                id: UUID(), email: "u@example.com", emailVerified: true, displayName: "U", isAdmin: false, isActive: true,
                providers: [.apple], createdAt: created, updatedAt: updated,
                identities: [identity, LinkedIdentity(
                    provider: .google, subject: "1", email: nil, emailVerified: false, isPrivateEmail: false, createdAt: created,
                    lastSignInAt: created)]),
        ]
    }

    static func written(_ value: some CompactJSONWritable, escapingSlashes: Bool) -> [UInt8] {
        var json = JSONBytes()
        value.write(to: &json, escapingSlashes: escapingSlashes)
        return json.array
    }

    @Test func writesTheBytesCodableWritesAndReadsThemBack() throws {
        for escapingSlashes in [true, false] {
            for credential in Self.credentials {
                let bytes = Self.written(credential, escapingSlashes: escapingSlashes)
                #expect(bytes == (try bytesThroughEncodable(credential, escapingSlashes: escapingSlashes)))
                #expect(try readWhole(ProviderCredential.self, bytes) == credential)
            }
            for user in Self.users() {
                let bytes = Self.written(user, escapingSlashes: escapingSlashes)
                #expect(bytes == (try bytesThroughEncodable(user, escapingSlashes: escapingSlashes)))
                for isNewUser in [false, true] {
                    let result = SignInResult(user: user, isNewUser: isNewUser)
                    let resultBytes = Self.written(result, escapingSlashes: escapingSlashes)
                    #expect(resultBytes == (try bytesThroughEncodable(result, escapingSlashes: escapingSlashes)))
                    if user.identities == nil {
                        #expect(try readWhole(User.self, bytes) == user)
                        #expect(try readWhole(SignInResult.self, resultBytes) == result)
                    } else {
                        // A user with identities goes the `Codable` way, to the same value.
                        #expect(throws: (any Error).self) { try readWhole(User.self, bytes) }
                        #expect(try RPCJSON.decode(SignInResult.self, from: Data(resultBytes)) == result)
                    }
                    expectReadAsJSONDecoderReads(SignInResult.self, String(decoding: resultBytes, as: UTF8.self), root: "result")
                }
            }
        }
    }

    /// Spellings of a credential: those the reader takes give `JSONDecoder`'s value; the others
    /// (Apple's name components, a `null`, a number, a repeated member, an unknown provider) go
    /// to `Codable`, to the same value or error.
    @Test(arguments: [
        #"{"provider":"apple","identity_token":"t"}"#, #" { "nonce" : "n\/\u0041" , "provider" : "google", "id_token":"t", "x":[1,{"a":null}] } "#,
        #"{"provider":"google","id_token":"i","identity_token":"t"}"#, #"{"provider":"google","access_token":"a"}"#,
        #"{"provider":"apple","identity_token":"t","full_name":{"given_name":" Ann ","family_name":"Lee"}}"#,
        #"{"provider":"apple","identity_token":null,"id_token":"i"}"#, #"{"provider":"apple","email":null}"#,
        #"{"provider":"apple","nonce":1}"#, #"{"provider":"orange"}"#, #"{"provider":null}"#, #"{"identity_token":"t"}"#,
        #"{"provider":"apple","provider":"apple"}"#, #"[]"#, #"{"provider":"apple"} x"#,
    ])
    func readsCredentialsAsJSONDecoderDoes(_ text: String) {
        if let value = try? readWhole(ProviderCredential.self, Array(text.utf8)) {
            #expect(value == (try? JSONDecoder().decode(ProviderCredential.self, from: Data(text.utf8))), "\(text)")
        }
        expectReadAsJSONDecoderReads(ProviderCredential.self, text, root: "params")
    }

    /// Spellings of a sign-in's answer, each the answer identity sends with its first `old`
    /// replaced by `new` (nil: the whole document).
    @Test(arguments: [
        (nil, "{}"), (nil, "null"), (#""is_new_user":true"#, #""is_new_user":1"#), (#""is_new_user":true"#, #""later":[{}],"is_new_user":true"#),
        (#""email":null"#, #""email":"e@example.com""#), (#""email":null,"#, ""), (#""display_name":null"#, #""display_name":7"#),
        (#""providers":[]"#, #""providers":["apple","orange"]"#), (#""providers":[]"#, #""providers":null"#),
        (#""is_active":true"#, #""is_active":true,"identities":null"#), (#""is_active":true"#, #""is_active":true,"identities":[]"#),
        (#""created_at":""#, #""created_at":"x"#), (#"123Z""#, #"123+01:00""#), (#".123Z""#, #"Z""#),
        (#""id":""#, #""id":"X"#), (#""is_admin":false"#, #""is_admin":false,"is_admin":false"#), ("true}", "true} x"),
    ] as [(String?, String)])
    func readsAnswersAsJSONDecoderDoes(_ old: String?, _ new: String) throws {
        let user = Self.users()[0]
        let sent = String(decoding: Self.written(SignInResult(user: user, isNewUser: true), escapingSlashes: true), as: UTF8.self)
        let text = try old.map { old in sent.replacingCharacters(in: try #require(sent.range(of: old)), with: new) } ?? new
        if let value = try? readWhole(SignInResult.self, Array(text.utf8)) {
            #expect(value == (try? JSONDecoder().decode(SignInResult.self, from: Data(text.utf8))), "\(text)")
        }
        expectReadAsJSONDecoderReads(SignInResult.self, text, root: "result")
        expectReadAsJSONDecoderReads(User.self, String(text.dropFirst(#"{"user":"#.count).prefix { $0 != "}" }) + "}", root: "result")
    }
}
