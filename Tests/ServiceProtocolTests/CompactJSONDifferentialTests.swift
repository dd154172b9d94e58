import CompactJSON
import Foundation
import Testing
import TestSupport

@testable import ServiceProtocol

/// Differential tests of the compact coders against Foundation's on thousands of generated
/// documents, valid and broken: whatever the compact decoder accepts, `JSONDecoder` decodes to
/// the same value; whatever it refuses falls through, so `JSONCoders` (what the RPC layer uses)
/// always answers exactly as `JSONDecoder` alone would. And every value the compact encoder
/// writes reads back, with `JSONDecoder`, as the value itself.
@Suite struct CompactJSONDifferentialTests {
    struct Entry: Codable, Equatable {
        var id: String
        var position: Int64?
        var read: Bool
        var tags: [String]
        var counts: [String: Int]

        enum CodingKeys: String, CodingKey {
            case id = "item_id", position, read, tags, counts
        }
    }

    struct Document: Codable, Equatable {
        var user: UUID
        var entries: [Entry]
        var cursor: String?
        var total: UInt64
    }

    static let alphabet: [String] = ["a", "Z", "0", " ", "\"", "\\", "/", "\n", "\t", "\u{01}", "\u{1F}", "é", "☃", "😀", "\u{2028}", "%", "{", "]"]

    static func text(_ random: inout SeededRandom) -> String {
        (0..<Int.random(in: 0...12, using: &random)).map { _ in Self.alphabet.randomElement(using: &random)! }.joined()
    }

    static func document(_ random: inout SeededRandom) -> Document {
        let entries = (0..<Int.random(in: 0...6, using: &random)).map { _ in
            Entry(
                id: Self.text(&random), position: Bool.random(using: &random) ? Int64.random(in: .min ... .max, using: &random) : nil,
                read: Bool.random(using: &random), tags: (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.text(&random) },
                counts: Dictionary(
                    (0..<Int.random(in: 0...3, using: &random)).map { _ in (Self.text(&random), Int.random(in: -1000...1000, using: &random)) },
                    uniquingKeysWith: { first, _ in first }))
        }
        return Document(
            user: UUID(), entries: entries, cursor: Bool.random(using: &random) ? Self.text(&random) : nil,
            total: UInt64.random(in: 0 ... .max, using: &random))
    }

    /// Breaks a valid document in one of the ways real input breaks, or changes it in ways
    /// that stay valid JSON but that the compact decoder leaves to Foundation's.
    static func mutate(_ json: [UInt8], _ random: inout SeededRandom) -> [UInt8] {
        guard !json.isEmpty else { return json }
        var bytes = json
        let at = Int.random(in: 0..<bytes.count, using: &random)
        switch Int.random(in: 0..<9, using: &random) {
        case 0: bytes.remove(at: at)
        case 1: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
        case 2: bytes[at] = UInt8.random(in: 0x20...0x7E, using: &random)
        case 3: bytes = Array(bytes.prefix(at))
        case 4: bytes.insert(contentsOf: Array(" \n\t".utf8), at: at)
        case 5: bytes.insert(contentsOf: Array(#""\uD800""#.utf8), at: at)
        case 6: bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: #""total":"#, with: #""total":1.0e0,"total":"#).utf8)
        case 7: bytes = Array(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "true", with: "1").utf8)
        default: bytes.insert(contentsOf: [0xC3, 0x28], at: at)  // invalid UTF-8
        }
        return bytes
    }

    @Test(arguments: 0..<8)
    func compactDecodingAgreesWithFoundationOnValidAndBrokenDocuments(_ seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &* 7919)
        let encoder = JSONEncoder()
        var accepted = 0
        for _ in 0..<400 {
            let valid = Array(try encoder.encode(Self.document(&random)))
            for bytes in [valid, Self.mutate(valid, &random), Self.mutate(Self.mutate(valid, &random), &random)] {
                let data = Data(bytes)
                let foundation = try? JSONDecoder().decode(Document.self, from: data)
                let compact = try? bytes.withUnsafeBytes { try CompactJSONDecoder.decode(Document.self, from: $0) }
                if let compact {
                    accepted += 1
                    #expect(foundation == compact, "compact read \(String(decoding: bytes, as: UTF8.self)) differently")
                }
                let layered = try? JSONCoders.decode(Document.self, from: data)
                #expect(layered == foundation, "JSONCoders differs from JSONDecoder on \(String(decoding: bytes, as: UTF8.self))")
            }
        }
        #expect(accepted >= 400, "the compact decoder took only \(accepted) documents: it should take every valid one")
    }

    @Test(arguments: 0..<4)
    func compactEncodingReadsBackAsTheSameValue(_ seed: Int) throws {
        var random = SeededRandom(seed: UInt64(seed) &* 104_729 &+ 1)
        for _ in 0..<400 {
            let document = Self.document(&random)
            let bytes = try CompactJSONEncoder.encode(document)
            #expect(try JSONDecoder().decode(Document.self, from: Data(bytes)) == document)
            #expect(try JSONCoders.decode(Document.self, from: Data(bytes)) == document)
        }
    }
}
