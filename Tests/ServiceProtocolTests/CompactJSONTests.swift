import CompactJSON
import Foundation
import NIOCore
import Testing

@testable import ServiceProtocol

/// The compact coders must agree with Foundation's on everything they take, and hand
/// everything else to Foundation's (`JSONCoders`), so callers never see a difference.
@Suite struct CompactJSONTests {
    struct Item: Codable, Equatable {
        var id: String
        var position: Int64?
        var flags: [Bool]
        var nested: [String: [Int]]
    }

    struct Page: Codable, Equatable {
        var userID: UUID
        var items: [Item]
        var count: UInt64
        var note: String?
        var kind: Kind

        enum Kind: String, Codable { case recent, position }
        enum CodingKeys: String, CodingKey {
            case userID = "user_id", items, count, note, kind
        }
    }

    static let page = Page(
        userID: UUID(),
        items: [
            Item(id: "a/b \"quoted\" \\ tab\t line\n bell\u{07} é ☃ 😀", position: -9_007_199_254_740_991, flags: [true, false], nested: ["x": [1, 2]]),
            Item(id: "", position: nil, flags: [], nested: [:]),
        ],
        count: 2, note: nil, kind: .position)

    private func foundationJSON<T: Encodable>(_ value: T) throws -> Data { try JSONEncoder().encode(value) }

    @Test func encodesWhatFoundationDecodesToTheSameValue() throws {
        let compact = Data(try CompactJSONEncoder.encode(Self.page))
        #expect(try JSONDecoder().decode(Page.self, from: compact) == Self.page)
    }

    @Test func escapesStringsExactlyAsFoundationDoes() throws {
        let text = "a/b \"q\" \\ \u{08}\u{0C}\n\r\t\u{01}\u{1F} é \u{2028} 😀"
        #expect(try CompactJSONEncoder.encode(text) == Array(try self.foundationJSON(text)))
        #expect(try CompactJSONEncoder.encode([text: [1, -2]]) == Array(try self.foundationJSON([text: [1, -2]])))
        // Slashes as they are, as `.withoutEscapingSlashes` writes them (the gateway's public bodies).
        let unescaped = JSONEncoder()
        unescaped.outputFormatting = .withoutEscapingSlashes
        for value in [text, "/", "a/b/c", "plain"] {
            #expect(try CompactJSONEncoder.encode(value, escapingSlashes: false) == Array(try unescaped.encode(value)))
        }
        #expect(try CompactJSONEncoder.encode(["https://x/y": ["/"]], escapingSlashes: false) == Array(#"{"https://x/y":["/"]}"#.utf8))
    }

    /// Lists of strings take a path of their own (item ids): the same bytes as Foundation's,
    /// at the top, inside an object, empty, and with characters to escape.
    @Test func idsAreWrittenAsFoundationWritesThem() throws {
        struct Params: Encodable {
            // In sorted order: the compact encoder writes members in encode order.
            var maybe: UUID?
            var others: [UUID]
            var user_id: UUID
        }
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        for _ in 0..<20 {
            let params = Params(maybe: UUID.random(), others: [UUID.random(), UUID.random()], user_id: UUID.random())
            #expect(try CompactJSONEncoder.encode(params) == Array(try sorted.encode(params)))
            #expect(try CompactJSONEncoder.encode(params.user_id) == Array(try self.foundationJSON(params.user_id)))
        }
    }

    @Test func stringListsAreWrittenAsFoundationWritesThem() throws {
        struct Params: Encodable {
            // In sorted order: the compact encoder writes members in encode order.
            var itemIDs: [String]
            var none: [String] = []
            var userID = "u"
            enum CodingKeys: String, CodingKey { case itemIDs = "item_ids", none, userID = "user_id" }
        }
        let sorted = JSONEncoder()
        sorted.outputFormatting = .sortedKeys
        let ids = ["item-1", "", "a/b \"q\" \\ \n\u{01} é 😀", "item-2"]
        #expect(try CompactJSONEncoder.encode(ids) == Array(try self.foundationJSON(ids)))
        #expect(try CompactJSONEncoder.encode([String]()) == Array("[]".utf8))
        #expect(try CompactJSONEncoder.encode([ids, []]) == Array(try self.foundationJSON([ids, []])))
        #expect(try CompactJSONEncoder.encode(Params(itemIDs: ids)) == Array(try sorted.encode(Params(itemIDs: ids))))
    }

    @Test func decodesWhatFoundationEncodesToTheSameValue() throws {
        let json = try self.foundationJSON(Self.page)
        let decoded = try json.withUnsafeBytes { try CompactJSONDecoder.decode(Page.self, from: $0) }
        #expect(decoded == Self.page)
    }

    /// The narrower integers encode themselves through a single-value container as themselves:
    /// each must be written by the coders, not handed back to its own `encode(to:)` forever.
    @Test func everyStandardIntegerRoundTrips() throws {
        struct Numbers: Codable, Equatable {
            var a: Int8, b: Int16, c: Int32, d: Int64, e: Int
            var f: UInt8, g: UInt16, h: UInt32, i: UInt64, j: UInt
            var list: [Int16]
        }
        let numbers = Numbers(
            a: .min, b: .min, c: .min, d: .min, e: .max, f: .max, g: .max, h: .max, i: .max, j: .max, list: [1, -2])
        let compact = try CompactJSONEncoder.encode(numbers)
        #expect(try JSONDecoder().decode(Numbers.self, from: Data(compact)) == numbers)
        let json = try self.foundationJSON(numbers)
        #expect(try json.withUnsafeBytes { try CompactJSONDecoder.decode(Numbers.self, from: $0) } == numbers)
        // Types neither coder knows are left to Foundation's, which names the problem.
        #expect(throws: CompactJSON.Unsupported.self) { try CompactJSONEncoder.encode(Float16(1.5)) }
        #expect(throws: (any Error).self) { try Data("5".utf8).withUnsafeBytes { try CompactJSONDecoder.decode(Int128.self, from: $0) } }
    }

    @Test func largeObjectsDecodeAndRefuseDuplicateKeys() throws {
        let dictionary = Dictionary(uniqueKeysWithValues: (0..<300).map { ("item-\($0)", $0) })
        let json = try self.foundationJSON(dictionary)
        #expect(try json.withUnsafeBytes { try CompactJSONDecoder.decode([String: Int].self, from: $0) } == dictionary)
        var text = String(decoding: json, as: UTF8.self)
        text.removeLast()
        text += #","item-7":1}"#
        let duplicated = Data(text.utf8)
        #expect(throws: CompactJSON.Unsupported.self) {
            try duplicated.withUnsafeBytes { try CompactJSONDecoder.decode([String: Int].self, from: $0) }
        }
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let json = Data(#"{"s":"\u0041\u00e9\ud83d\ude00\/\"\\\b\f\n\r\t"}"#.utf8)
        let decoded = try json.withUnsafeBytes { try CompactJSONDecoder.decode([String: String].self, from: $0) }
        #expect(decoded == ["s": "Aé😀/\"\\\u{08}\u{0C}\n\r\t"])
    }

    /// Each of these is either refused by Foundation too, or read by it in a way of its own;
    /// the compact decoder declines them all.
    @Test(arguments: [
        #"{"value":1.0,"text":"x"}"#,  // an integer written with a fraction
        #"{"value":1e2,"text":"x"}"#,
        #"{"value":1,"text":"x","text":"y"}"#,  // duplicate key: Foundation keeps the first
        #"{"value":01,"text":"x"}"#,  // leading zero
        #"{"value":1,"text":"\ud83d"}"#,  // lone surrogate
        #"{"value":1,"text":"a"#,  // cut short
        #"{"value":1,"text":"x"} x"#,  // trailing text
        #"{"value":99999999999999999999,"text":"x"}"#,  // out of range
        #"{"value":"1","text":"x"}"#,  // wrong type
        #"{"text":"x"}"#,  // missing field
        "{\"value\":1,\"text\":\"a\u{01}\"}",  // raw control character
    ])
    func declinesWhatItDoesNotHandle(_ json: String) {
        struct Echo: Decodable { var value: Int; var text: String }
        let bytes = Data(json.utf8)
        #expect(throws: CompactJSON.Unsupported.self) {
            try bytes.withUnsafeBytes { try CompactJSONDecoder.decode(Echo.self, from: $0) }
        }
    }

    @Test func coderFallBackToFoundationForWhatTheCompactOnesDecline() throws {
        struct Echo: Codable, Equatable { var value: Int; var text: String }
        // Foundation reads 1.0 as the integer 1 and keeps the first of duplicate keys.
        #expect(try JSONCoders.decode(Echo.self, from: Data(#"{"value":1.0,"text":"x","text":"y"}"#.utf8)) == Echo(value: 1, text: "x"))
        var buffer = ByteBuffer(string: #"{"value":"1","text":"x"}"#)
        #expect(throws: DecodingError.self) { try JSONCoders.decode(Echo.self, from: buffer) }
        buffer = ByteBuffer(string: #"{"value":7,"text":"x"}"#)
        #expect(try JSONCoders.decode(Echo.self, from: buffer) == Echo(value: 7, text: "x"))

        // Floating point, dates and data are written by Foundation, in its formats.
        struct Mixed: Codable, Equatable { var ratio: Double; var at: Date; var blob: Data }
        let mixed = Mixed(ratio: 0.1, at: Date(timeIntervalSinceReferenceDate: 12.5), blob: Data([1, 2, 3]))
        #expect(throws: CompactJSON.Unsupported.self) { try CompactJSONEncoder.encode(mixed) }
        #expect(try JSONCoders.decode(Mixed.self, from: try JSONCoders.encode(mixed)) == mixed)

        // Ids: the compact decoder reads the canonical form itself and leaves the rest to
        // Foundation, which decides as it always did (its `sscanf` takes a `+` in a field).
        struct Owner: Codable, Equatable { var id: UUID; var other: UUID? }
        let id = UUID.random()
        let canonical = Data(#"{"id":"\#(id.uuidString.lowercased())","other":null}"#.utf8)
        #expect(try canonical.withUnsafeBytes { try CompactJSONDecoder.decode(Owner.self, from: $0) } == Owner(id: id, other: nil))
        let lax = Data(#"{"id":"+ba7b810-9dad-11d1-80b4-00c04fd430c8"}"#.utf8)
        #expect(throws: CompactJSON.Unsupported.self) { try lax.withUnsafeBytes { try CompactJSONDecoder.decode(Owner.self, from: $0) } }
        #expect(try JSONCoders.decode(Owner.self, from: lax) == (try JSONDecoder().decode(Owner.self, from: lax)))
        let invalid = Data(#"{"id":"not-an-id"}"#.utf8)
        #expect(throws: DecodingError.self) { try JSONCoders.decode(Owner.self, from: invalid) }
    }

    @Test func encoderDeclinesWhatItCannotWriteInOnePass() {
        struct Empty: Encodable { func encode(to encoder: any Encoder) throws {} }
        struct KeyedThenUnkeyed: Encodable {
            enum Keys: CodingKey { case a }
            func encode(to encoder: any Encoder) throws {
                var first = encoder.container(keyedBy: Keys.self)
                try first.encode(1, forKey: .a)
                var second = encoder.unkeyedContainer()
                try second.encode(2)
            }
        }
        struct Interleaved: Encodable {
            enum Keys: CodingKey { case list, after }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode(1)
                try container.encode(2, forKey: .after)
                try list.encode(3)  // the list was closed when `after` was written
            }
        }
        #expect(throws: CompactJSON.Unsupported.self) { try CompactJSONEncoder.encode([Empty()]) }
        #expect(throws: CompactJSON.Unsupported.self) { try CompactJSONEncoder.encode(KeyedThenUnkeyed()) }
        #expect(throws: CompactJSON.Unsupported.self) { try CompactJSONEncoder.encode(Interleaved()) }
    }

    /// A type that writes a member's fields into its own object asks for its keyed container
    /// twice, as `identity.link`'s params do.
    @Test func secondKeyedContainerOfAValueWritesIntoTheSameObject() throws {
        struct Credential: Encodable {
            enum Keys: CodingKey { case provider, token }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("apple", forKey: .provider)
                try container.encode("t/1", forKey: .token)
            }
        }
        struct Link: Encodable {
            enum Keys: String, CodingKey { case userID = "user_id" }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                try container.encode("u", forKey: .userID)
                try Credential().encode(to: encoder)
            }
        }
        let text = String(decoding: try CompactJSONEncoder.encode([Link(), Link()]), as: UTF8.self)
        #expect(text == #"[{"user_id":"u","provider":"apple","token":"t\/1"},{"user_id":"u","provider":"apple","token":"t\/1"}]"#)
    }

    @Test func nestedContainersAndNullsAreWrittenInPlace() throws {
        struct Shape: Encodable {
            enum Keys: CodingKey { case list, object, missing }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: Keys.self)
                var list = container.nestedUnkeyedContainer(forKey: .list)
                try list.encode("a")
                try list.encodeNil()
                var inner = list.nestedContainer(keyedBy: Keys.self)
                try inner.encode(true, forKey: .missing)
                var object = container.nestedContainer(keyedBy: Keys.self, forKey: .object)
                try object.encodeNil(forKey: .missing)
            }
        }
        let text = String(decoding: try CompactJSONEncoder.encode(Shape()), as: UTF8.self)
        #expect(text == #"{"list":["a",null,{"missing":true}],"object":{"missing":null}}"#)
    }
}
