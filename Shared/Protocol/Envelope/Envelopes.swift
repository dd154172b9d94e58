import CompactJSON
import FoundationEssentials
import NIOCore
import NIOFoundationEssentialsCompat

/// Version of the envelope format carried in `v`.
public let rpcProtocolVersion = 1

/// A failed response. `id` 0 means the error concerns the connection, not one request.
public struct ErrorEnvelope: Codable, Sendable {
    public var v = rpcProtocolVersion
    public var id: UInt64
    public var error: RPCError

    public init(id: UInt64, error: RPCError) {
        self.id = id
        self.error = error
    }
}

/// Parameters or result of a method that carries none: `{}`.
public struct Empty: Codable, Sendable, Hashable {
    public init() {}
}

/// The coders of params and results: the compact ones (`CompactJSONEncoder`,
/// `CompactJSONDecoder`) for the plain values that make up nearly every call, Foundation's
/// for what they leave, which includes every document that fails to decode; a value read,
/// and every error, is what Foundation's coders alone would give. The Foundation coders are
/// shared: creating them per message costs more than the small payloads they handle.
enum JSONCoders {
    /// Keys sorted: Foundation's encoder otherwise writes an object's members in an order that
    /// changes from one run to the next.
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }()
    static let decoder = JSONDecoder()
    static let emptyObject = Data("{}".utf8)

    static func encode<T: Encodable>(_ value: T) throws -> Data {
        if let bytes = try? CompactJSONEncoder.encode(value) { return Data(bytes) }
        return try self.encoder.encode(value)
    }

    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        if let value = buffer.withUnsafeReadableBytes({ try? CompactJSONDecoder.decode(T.self, from: $0) }) { return value }
        return try self.decoder.decode(T.self, from: buffer)
    }

    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try CompactJSONDecoder.decode(T.self, from: data, otherwise: self.decoder)
    }
}

/// The RPC layer's JSON coders, for callers that build params or read results themselves
/// (the gateway forwards JSON it assembled): the compact coders with Foundation's behind them.
public enum RPCJSON {
    /// Why a document did not decode, naming the field (under `root`, e.g. `params`) and the
    /// problem, never the document's content: safe to answer a caller with.
    public static func describe(decodingError error: any Error, root: String?) -> String {
        ServiceProtocol.describe(decodingError: error, root: root)
    }

    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try JSONCoders.encode(value)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        try JSONCoders.decode(type, from: buffer)
    }

    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try JSONCoders.decode(type, from: data)
    }

    /// The document as a tree, or nil when it is not one the compact decoder reads (malformed,
    /// duplicate keys, invalid UTF-8, lone surrogates); the caller then asks Foundation.
    public static func parse(_ buffer: ByteBuffer) -> CompactJSONNode? {
        buffer.withUnsafeReadableBytes { bytes in
            var parser = CompactJSONParser(bytes)
            return try? parser.document()
        }
    }
}
