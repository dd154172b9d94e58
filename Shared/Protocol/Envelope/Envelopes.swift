import Foundation

/// Version of the envelope format carried in `v`.
public let rpcProtocolVersion = 1

/// The member names of request and response envelopes.
enum EnvelopeKey: String, CodingKey {
    case v, id, method, params, result, error
    case deadlineMs = "deadline_ms"
    case requestID = "request_id"
}

/// A whole request as a caller encodes it.
public struct RequestEnvelope<Params: Encodable & Sendable>: Encodable, Sendable {
    public var v = rpcProtocolVersion
    public var id: UInt64
    public var method: String
    public var params: Params
    public var deadlineMs: UInt64?
    public var requestID: String?

    public init(id: UInt64, method: String, params: Params, deadlineMs: UInt64? = nil, requestID: String? = nil) {
        self.id = id
        self.method = method
        self.params = params
        self.deadlineMs = deadlineMs
        self.requestID = requestID
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: EnvelopeKey.self)
        try container.encode(self.v, forKey: .v)
        try container.encode(self.id, forKey: .id)
        try container.encode(self.method, forKey: .method)
        try container.encode(self.params, forKey: .params)
        try container.encodeIfPresent(self.deadlineMs, forKey: .deadlineMs)
        try container.encodeIfPresent(self.requestID, forKey: .requestID)
    }
}

/// A successful response.
public struct ResultEnvelope<Result: Encodable & Sendable>: Encodable, Sendable {
    public var v = rpcProtocolVersion
    public var id: UInt64
    public var result: Result
}

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

/// Shared coders: creating them per message costs more than the small payloads they handle.
enum JSONCoders {
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()
    static let emptyObject = Data("{}".utf8)
}

extension KeyedDecodingContainer where K == EnvelopeKey {
    /// Decodes the member `key` as `T`; an absent or `null` member reads as `{}`.
    func decodeObject<T: Decodable>(_ type: T.Type, forKey key: EnvelopeKey) throws -> T {
        if self.contains(key), try !self.decodeNil(forKey: key) {
            return try self.decode(T.self, forKey: key)
        }
        return try JSONCoders.decoder.decode(T.self, from: JSONCoders.emptyObject)
    }
}
