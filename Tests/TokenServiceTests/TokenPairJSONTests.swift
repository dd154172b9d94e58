import Foundation
import ServiceProtocol
import TestSupport
import Testing
import TokensAPI

@testable import TokenService

/// The gateway reads a `TokenPair` by hand (`CompactJSONReadable`): whatever the RPC layer reads
/// from any spelling must be what `JSONDecoder` reads, errors included.
@Suite struct TokenPairJSONTests {
    static func pair(admin: Bool) -> TokenPair {
        TokenPair(
            accessToken: "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln", tokenType: "Bearer", expiresIn: 900,
            expiresAt: "2026-11-26T15:00:00Z", refreshToken: RefreshToken().text, refreshExpiresAt: "2027-01-25T15:00:00Z",
            sessionID: UUID(), userID: UUID(), isAdmin: admin)
    }

    static func read(_ text: String) throws -> TokenPair {
        try readWhole(TokenPair.self, Array(text.utf8))
    }

    /// The bytes `tokens` sends, and other spellings of the same pair, are read by the reader
    /// itself, to the value `JSONDecoder` reads.
    @Test func readsThePairTokensSendsAndOtherSpellingsAsJSONDecoderDoes() throws {
        for admin in [false, true] {
            let pair = Self.pair(admin: admin)
            let sent = String(decoding: pair.json.utf8, as: UTF8.self)
            let reordered = """
                 { "is_admin" : \(admin), "user_id":"\(pair.userID.uuidString.lowercased())", "session_id":"\(pair.sessionID)",
                  "refresh_expires_at":"2027-01-25T15:00:00Z","refresh_token":"\(pair.refreshToken)","expires_at":"2026-11-26T15:00:00Z",
                  "expires_in":900,"token_type":"Bearer","access_token":"eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ1In0.c2ln", "later": {"a": [1, null]}}
                """
            for text in [sent, reordered] {
                #expect(try Self.read(text) == pair, "\(text)")
                expectReadAsJSONDecoderReads(TokenPair.self, text, root: "result")
            }
        }
        // Integers as `Int` reads them: a sign, and the largest there is.
        let negative = try Self.read(String(decoding: Self.pair(admin: false).json.utf8, as: UTF8.self).replacingOccurrences(of: ":900,", with: ":-0,"))
        #expect(negative.expiresIn == 0)
        let largest = try Self.read(
            String(decoding: Self.pair(admin: false).json.utf8, as: UTF8.self).replacingOccurrences(of: ":900,", with: ":\(Int.max),"))
        #expect(largest.expiresIn == Int.max)
    }

    /// What the reader refuses goes to `Decodable`: the same value, or the same error. Each
    /// case is the pair `tokens` sends with its first `old` replaced by `new` (nil: the
    /// whole document).
    @Test(arguments: [
        (nil, "null"), (nil, "{}"), (nil, "[]"), (":900,", ":900.0,"), (":900,", ":9e2,"), (":900,", ":null,"), (":900,", #":"900","#),
        (":900,", ":9223372036854775808,"), (#""is_admin":false"#, #""is_admin":0"#), (#""is_admin":false"#, #""is_admin":null"#),
        (#""is_admin":false"#, #""is_admin":fals"#), (#""token_type":"Bearer""#, #""token_type":null"#),
        (#""token_type":"Bearer""#, #""token_type":"Bearer","token_type":"Bearer""#), (#""session_id":""#, #""session_id":"X"#),
        ("{", #"{"access_token":1,"#), ("}", "} x"),
    ] as [(String?, String)])
    func leavesOtherDocumentsToDecodable(_ old: String?, _ new: String) throws {
        let sent = String(decoding: Self.pair(admin: false).json.utf8, as: UTF8.self)
        let text = try old.map { old in sent.replacingCharacters(in: try #require(sent.range(of: old)), with: new) } ?? new
        #expect(throws: (any Error).self, "\(text)") { try Self.read(text) }
        expectReadAsJSONDecoderReads(TokenPair.self, text, root: "result")
    }
}
