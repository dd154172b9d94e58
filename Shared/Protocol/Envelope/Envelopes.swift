import Foundation

/// Version of the envelope format carried in `v`.
public let rpcProtocolVersion = 1

/// The fields of a request every server reads before it knows the method's parameter type.
public struct RequestHeader: Decodable, Sendable {
    public var v: Int?
    public var id: UInt64
    public var method: String
    public var deadlineMs: UInt64?
    public var requestID: String?

    enum CodingKeys: String, CodingKey {
        case v, id, method
        case deadlineMs = "deadline_ms"
        case requestID = "request_id"
    }
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

    enum CodingKeys: String, CodingKey {
        case v, id, method, params
        case deadlineMs = "deadline_ms"
        case requestID = "request_id"
    }
}

/// The `params` member of a request, decoded once the method (and so its type) is known.
/// An absent `params` reads as an empty object.
struct ParamsEnvelope<Params: Decodable>: Decodable {
    var params: Params

    enum CodingKeys: String, CodingKey { case params }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if container.contains(.params), try !container.decodeNil(forKey: .params) {
            self.params = try container.decode(Params.self, forKey: .params)
        } else {
            self.params = try JSONDecoder().decode(Params.self, from: Data("{}".utf8))
        }
    }
}

/// The fields of a response a caller reads to match it to its request.
public struct ResponseHeader: Decodable, Sendable {
    public var id: UInt64
    public var error: RPCError?
}

/// A successful response.
public struct ResultEnvelope<Result: Encodable & Sendable>: Encodable, Sendable {
    public var v = rpcProtocolVersion
    public var id: UInt64
    public var result: Result
}

/// The `result` member of a response, decoded by the caller that knows its type.
struct ResultBody<Result: Decodable>: Decodable {
    var result: Result
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
