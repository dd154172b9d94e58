import CompactJSON
import Foundation
import JWTKit
import Testing

@testable import IdentityService

/// Provider tokens are read by the compact decoder, never by `JSONDecoder` behind it, and
/// read the same as JWTKit's own decoder (times as seconds since 1970) reads them.
@Suite struct CompactJWTJSONDecoderTests {
    static let apple = Data(
        #"""
        {"iss":"https://appleid.apple.com","aud":"com.example.latchkey","exp":1795592533,"iat":1795588933.5,
         "sub":"001234.0a1b2c3d4e5f.0123","nonce":"n-0S6_WzA2Mj","nonce_supported":true,
         "email":"x7@privaterelay.appleid.com","email_verified":"true","is_private_email":true,
         "real_user_status":2,"auth_time":1795588930}
        """#.utf8)
    static let google = Data(
        #"""
        {"iss":"https://accounts.google.com","azp":"client.apps.googleusercontent.com",
         "aud":"client.apps.googleusercontent.com","sub":"110169484474386276334","email":"a@example.com",
         "email_verified":true,"at_hash":"HK6E_P6Dh8Y93mRNtsDB1Q","name":"A B","picture":"https://example.com/a.png",
         "given_name":"A","family_name":"B","locale":"en","iat":1795588933,"exp":1795592533,"nonce":"xyz"}
        """#.utf8)
    static let header = Data(#"{"alg":"RS256","kid":"key-1","typ":"JWT"}"#.utf8)

    /// JWTKit's default decoder, the reference.
    static var jwtKit: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .secondsSince1970
        return decoder
    }

    /// The value as JSON with sorted keys, to compare two decodings of a type that is not `Equatable`.
    func canonical(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    func compact<T: Decodable>(_ type: T.Type, _ data: Data) throws -> T {
        try data.withUnsafeBytes { try CompactJSONDecoder.decode(T.self, from: $0, dates: .secondsSince1970) }
    }

    @Test func appleAndGoogleClaimsAndTheHeaderAreReadByTheCompactDecoderAsJWTKitReadsThem() throws {
        let apple = try self.compact(AppleClaims.self, Self.apple)
        #expect(try self.canonical(apple) == self.canonical(Self.jwtKit.decode(AppleClaims.self, from: Self.apple)))
        #expect(apple.token.expires.value == Date(timeIntervalSince1970: 1_795_592_533))
        #expect(apple.token.issuedAt.value == Date(timeIntervalSince1970: 1_795_588_933.5))
        let google = try self.compact(GoogleClaims.self, Self.google)
        #expect(try self.canonical(google) == self.canonical(Self.jwtKit.decode(GoogleClaims.self, from: Self.google)))
        let header = try self.compact(JWTHeader.self, Self.header)
        #expect(header.kid == "key-1" && header.alg == "RS256")
    }

    @Test func datesAreReadOnlyWhenAskedFor() throws {
        #expect(throws: (any Error).self) {
            try Data("1795592533".utf8).withUnsafeBytes { try CompactJSONDecoder.decode(Date.self, from: $0) }
        }
        #expect(try self.compact(Date.self, Data("-1.25".utf8)) == Date(timeIntervalSince1970: -1.25))
        #expect(throws: (any Error).self) { try self.compact(Date.self, Data(#""2026-11-25""#.utf8)) }
    }

    @Test func whatTheCompactDecoderLeavesIsJWTKitsToReadOrRefuse() throws {
        let decoder = CompactJWTJSONDecoder()
        // A time JSONDecoder reads and the compact decoder leaves to it (an exponent).
        let exponent = Data(#"{"iss":"https://appleid.apple.com","aud":"a","exp":1.7955925e9,"iat":1,"sub":"s"}"#.utf8)
        let read = try decoder.decode(AppleClaims.self, from: exponent)
        #expect(try self.canonical(read) == self.canonical(Self.jwtKit.decode(AppleClaims.self, from: exponent)))
        // An audience as a list: JWTKit tells it from a single one by `JSONDecoder`'s type
        // mismatch, which the compact decoder does not raise.
        let list = Data(#"{"iss":"https://accounts.google.com","azp":"c","aud":["c","d"],"sub":"s","iat":1,"exp":2}"#.utf8)
        #expect(try decoder.decode(GoogleClaims.self, from: list).audience.value == ["c", "d"])
        // A document neither reads fails with JSONDecoder's error.
        #expect(throws: DecodingError.self) { try decoder.decode(AppleClaims.self, from: Data(#"{"iss":"#.utf8)) }
    }
}
