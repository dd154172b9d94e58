import CompactJSON
import Foundation
import TestSupport
import Testing
import TextCoding
import TokensAPI

/// `RefreshParams` writes and reads its JSON by hand: the bytes `Codable` writes, and from any
/// spelling the value or the error `JSONDecoder` gives.
@Suite struct RefreshParamsJSONTests {
    struct Plain: Codable {
        var refreshToken: String

        enum CodingKeys: String, CodingKey {
            case refreshToken = "refresh_token"
        }
    }

    static let tokens = ["rt_abc-DEF_123", "", "a/b", "\"quoted\"\\", "tab\tnew\nline\u{01}", "café☃😀"]

    @Test func writesTheBytesCodableWritesAndReadsThemBack() throws {
        for token in Self.tokens {
            for escapingSlashes in [true, false] {
                var json = JSONBytes()
                RefreshParams(refreshToken: token).write(to: &json, escapingSlashes: escapingSlashes)
                #expect(json.array == (try CompactJSONEncoder.encode(Plain(refreshToken: token), escapingSlashes: escapingSlashes)))
                // And the reader itself reads them back.
                #expect(try readWhole(RefreshParams.self, json.array).refreshToken == token)
            }
        }
        // With a proof's key: the bytes `Codable` writes, read back.
        let bound = RefreshParams(refreshToken: "rt", dpopJKT: "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        var json = JSONBytes()
        bound.write(to: &json, escapingSlashes: true)
        #expect(json.array == (try CompactJSONEncoder.encode(bound, escapingSlashes: true)))
        #expect(try readWhole(RefreshParams.self, json.array) == bound)
    }

    @Test(arguments: [
        #"{"refresh_token":"rt_1"}"#, #" { "refresh_token" : "rt\/1\u0041" , "other" : [1, {"a": null}] } "#,
        #"{"refresh_token":null}"#, #"{}"#, #"{"refresh_token":1}"#, #"{"refresh_token":"a","refresh_token":"b"}"#, #"[]"#,
        #"{"refresh_token":"a"} x"#, #"{"refresh_token":"a","dpop_jkt":"k"}"#, #"{"refresh_token":"a","dpop_jkt":null}"#,
        #"{"refresh_token":"a","dpop_jkt":1}"#,
    ])
    func readsAsJSONDecoderDoes(_ text: String) {
        let read = Result { try readWhole(RefreshParams.self, Array(text.utf8)) }
        // The reader gives JSONDecoder's value or refuses (then the RPC layer asks JSONDecoder).
        if case .success(let value) = read {
            #expect(value == (try? JSONDecoder().decode(RefreshParams.self, from: Data(text.utf8))), "\(text)")
        }
        expectReadAsJSONDecoderReads(RefreshParams.self, text, root: "params")
    }
}
