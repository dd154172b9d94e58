import CompactJSON
import Foundation

/// The RPC layer decodes params and results with `CompactJSONDecoder` first and Foundation's
/// `JSONDecoder` only when it refuses. Property (differential): whatever the compact decoder
/// accepts, Foundation decodes to the same value; so the fast path never reads a document
/// differently from the reference one.
enum JSONDecoderFuzzing {
    /// The shapes the API's messages are made of: text, integers of several widths, floating
    /// point, booleans, optionals, arrays, dictionaries and nesting.
    struct Message: Codable, Equatable {
        var text: String?
        var count: Int?
        var large: Int64?
        var small: UInt8?
        var ratio: Double?
        var flag: Bool?
        var names: [String]?
        var scores: [String: Int]?
        var nested: Nested?
        var items: [Nested]?
    }

    struct Nested: Codable, Equatable {
        var id: String
        var position: Double?
        var tags: [String]?
        var at: Int32?
    }

    static func run(_ bytes: UnsafeRawBufferPointer) {
        Self.compare(Message.self, bytes)
        Self.compare([String: String].self, bytes)
        Self.compare([Int].self, bytes)
        Self.compare([Double].self, bytes)
        Self.compare(String.self, bytes)
    }

    static func compare<T: Decodable & Equatable>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) {
        guard let fast = try? CompactJSONDecoder.decode(T.self, from: bytes) else { return }
        let reference: T
        do {
            reference = try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            FuzzCheck.require(false, "the compact decoder read \(T.self) from a document Foundation refuses: \(error)")
            return
        }
        FuzzCheck.require(fast == reference, "\(T.self): compact \(fast), Foundation \(reference)")
    }
}
