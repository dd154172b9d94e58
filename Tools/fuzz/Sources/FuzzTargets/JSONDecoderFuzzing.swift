import CompactJSON
import ContentStateAPI
import Foundation
import IdentityAPI
import TokensAPI

/// The RPC layer decodes params and results with `CompactJSONDecoder` first and Foundation's
/// `JSONDecoder` only when it refuses. Property (differential): whatever the compact decoder
/// accepts, Foundation decodes to the same value; so the fast path never reads a document
/// differently from the reference one. The same for the messages that read themselves
/// (`CompactJSONReadable`: a sign-in's, a refresh's, a state query's, a signed token's
/// header), whose readers the decoder asks before anything else.
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
        Self.compareReader(ProviderCredential.self, bytes)
        Self.compareReader(SignInResult.self, bytes)
        Self.compareReader(User.self, bytes)
        Self.compareReader(IssueParams.self, bytes)
        Self.compareReader(TokenPair.self, bytes)
        Self.compareReader(RefreshParams.self, bytes)
        Self.compareReader(StateQueryParams.self, bytes)
        Self.compareReader(JWSHeader.self, bytes)
    }

    /// What a type's own reader reads from the whole document, Foundation reads too, to the
    /// same value.
    static func compareReader<T: CompactJSONReadable & Equatable>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) {
        guard let read = try? CompactJSONDecoder.readWhole(T.self, from: bytes) else { return }
        Self.expectFoundationReads(read, from: bytes, reader: "\(T.self)'s reader")
    }

    static func compare<T: Decodable & Equatable>(_ type: T.Type, _ bytes: UnsafeRawBufferPointer) {
        guard let fast = try? CompactJSONDecoder.decode(T.self, from: bytes) else { return }
        Self.expectFoundationReads(fast, from: bytes, reader: "the compact decoder")
    }

    /// Foundation reads `bytes` as `T`, to `value`, which `reader` read from them.
    private static func expectFoundationReads<T: Decodable & Equatable>(_ value: T, from bytes: UnsafeRawBufferPointer, reader: String) {
        let reference: T
        do {
            reference = try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            FuzzCheck.require(false, "\(reader) read \(T.self) from a document Foundation refuses: \(error)")
            return
        }
        FuzzCheck.require(value == reference, "\(T.self): \(reader) \(value), Foundation \(reference)")
    }
}
