import CompactJSON
import ContentStateAPI
import Foundation
import ServiceProtocol
import TestSupport
import Testing
import TextCoding

/// `StateQueryParams` writes and reads its JSON by hand (`CompactJSONWritable`,
/// `CompactJSONReadable`). Its bytes must be those `Codable` writes, and whatever the RPC layer
/// reads from any spelling must be what `JSONDecoder` reads, errors included.
@Suite struct StateQueryParamsJSONTests {
    /// The same members through `Codable` alone.
    struct Plain: Codable, Equatable {
        var userID: UUID
        var itemIDs: [String]

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case itemIDs = "item_ids"
        }
    }

    static let texts = [
        "item-1", "", "a/b", "\"quoted\"", "back\\slash", "tab\tnew\nline", "\u{01}\u{1F}", "café", "☃😀", "\u{2028}", "{]",
    ]

    static func samples() -> [StateQueryParams] {
        [
            StateQueryParams(userID: UUID(), itemIDs: []),
            StateQueryParams(userID: UUID(), itemIDs: Self.texts),
            StateQueryParams(userID: UUID(), itemIDs: (0..<200).map { "item-\($0)" }),
        ]
    }

    @Test func writesTheBytesCodableWrites() throws {
        for params in Self.samples() {
            let plain = Plain(userID: params.userID, itemIDs: params.itemIDs)
            for escapingSlashes in [true, false] {
                var json = JSONBytes()
                params.write(to: &json, escapingSlashes: escapingSlashes)
                #expect(json.array == (try CompactJSONEncoder.encode(plain, escapingSlashes: escapingSlashes)))
            }
            #expect(try RPCJSON.encode(params) == RPCJSON.encode(plain))
        }
    }

    /// Spellings the reader takes itself: the value is the one `JSONDecoder` reads.
    @Test func readsEverySpellingOfTheParamsAsJSONDecoderDoes() throws {
        for params in Self.samples() {
            let ids = try String(decoding: JSONEncoder().encode(params.itemIDs), as: UTF8.self)
            let user = params.userID.uuidString
            for text in [
                String(decoding: try RPCJSON.encode(params), as: UTF8.self),
                #"{"item_ids":\#(ids),"user_id":"\#(user.lowercased())"}"#,
                " {\n  \"user_id\" : \"\(user)\" ,\n  \"item_ids\" : \(ids) ,\"note\":{\"a\":[1,null]}\n} ",
            ] {
                #expect(try readWhole(StateQueryParams.self, Array(text.utf8)) == params, "\(text)")
                expectReadAsJSONDecoderReads(StateQueryParams.self, text, root: "params")
            }
        }
    }

    /// What the reader refuses goes to `Codable`: the same value, or the same error.
    @Test(arguments: [
        #"{"user_id":null,"item_ids":["a"]}"#,
        #"{"item_ids":["a"]}"#,
        #"{"user_id":"00000000-0000-0000-0000-00000000000G","item_ids":["a"]}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","item_ids":[1]}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","item_ids":"a"}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","item_ids":["a"],"item_ids":["b"]}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","item_ids":["a"],"n":1.5e3}"#,
        #"{"user_id":"F2B0E8B4-3C41-4D8A-9C2E-6B1D1A7E9F10","item_ids":["a"]} x"#,
    ])
    func leavesOtherDocumentsToCodable(_ text: String) {
        expectReadAsJSONDecoderReads(StateQueryParams.self, text, root: "params")
    }
}
