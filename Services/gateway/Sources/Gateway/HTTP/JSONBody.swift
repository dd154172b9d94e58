import CompactJSON
import FoundationEssentials
import Hummingbird
import NIOCore
import NIOFoundationEssentialsCompat
import ServiceProtocol

/// Any JSON value: how the gateway reads a client's body and picks the members it forwards,
/// leaving type checks of each member to the backend that owns it (which answers
/// `bad_request` naming the field).
enum JSONValue: Codable, Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value):
            // A whole number that `Int64` holds is written as its digits, which read back to the
            // same value as an `int`. Written as `Double`'s shortest text (`3.99e+18`), it came
            // back from a second reading (Foundation reads an `Int64` from that text's decimal
            // value) as another number than the one forwarded.
            if let integer = Int64(exactly: value) {
                try container.encode(integer)
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The value of a parsed document, or nil when it holds a number other than an integer in
    /// `Int64`'s range: how `init(from:)` reads those (an `int` or a `double`) is Foundation's call.
    init?(_ node: CompactJSONNode) {
        switch node {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .string(let value): self = .string(value)
        case .number(let text):
            guard let value = Int64(text) else { return nil }
            self = .int(value)
        case .array(let nodes):
            var elements: [JSONValue] = []
            elements.reserveCapacity(nodes.count)
            for node in nodes {
                guard let element = JSONValue(node) else { return nil }
                elements.append(element)
            }
            self = .array(elements)
        case .object(let keys, let nodes):
            var members: [String: JSONValue] = [:]
            members.reserveCapacity(keys.count)
            for (key, node) in zip(keys, nodes) {
                guard let member = JSONValue(node) else { return nil }
                members[key] = member
            }
            self = .object(members)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral {
    init(stringLiteral value: String) {
        self = .string(value)
    }
}

/// A JSON object under construction: the params of a backend call.
typealias JSONObject = [String: JSONValue]

extension JSONObject {
    /// Copies the members named in `keys` that the client sent (a member sent as `null` is
    /// copied as `null`: for a put, that clears the field; a member left out stays out).
    mutating func copy(_ keys: [String], from body: JSONObject) {
        for key in keys {
            if let value = body[key] { self[key] = value }
        }
    }

    /// The params as JSON bytes, written by the RPC layer's coders.
    func encoded() throws -> Data {
        try RPCJSON.encode(self)
    }
}

/// Limits of a client's JSON body (DESIGN.md section 7: inputs are bounded).
enum JSONBody {
    /// Deepest nesting accepted; the API's bodies are at most three levels deep.
    static let maximumDepth = 16

    /// Reads the body as a JSON object: an empty body is `{}` when `optional`. Too large is
    /// 413; a non-empty body not declared as JSON is 415; anything but a JSON object, nesting
    /// deeper than `maximumDepth`, invalid UTF-8 or a string holding NUL is 400.
    static func object(_ request: Request, limit: Int, optional: Bool = false) async throws -> JSONObject {
        guard let buffer = try await Self.bytes(request, limit: limit) else {
            if optional { return [:] }
            throw Self.bodyRequired
        }
        return try Self.object(buffer)
    }

    /// The `item_ids` of a body that must hold them (a state query's): what `object(...)`
    /// and then `itemIDs()` give, errors included. A body of that member alone, the usual one,
    /// is read straight from the bytes, without a tree of values.
    static func itemIDs(_ request: Request, limit: Int) async throws -> [String] {
        guard let buffer = try await Self.bytes(request, limit: limit) else { throw Self.bodyRequired }
        return try Self.onlyItemIDs(buffer) ?? Self.object(buffer).itemIDs()
    }

    /// The ids of `{"item_ids": [strings]}`, nothing else in it and no id holding NUL; nil for
    /// any other body, which `object(_:)` then reads.
    static func onlyItemIDs(_ buffer: ByteBuffer) -> [String]? {
        buffer.withUnsafeReadableBytes { bytes in
            var parser = CompactJSONParser(bytes)
            var ids: [String]?
            let read: ()? = try? parser.readObject { key, parser in
                guard key == "item_ids" else { throw CompactJSON.Unsupported() }
                ids = try parser.readStringArray()
            }
            guard read != nil, (try? parser.readEnd()) != nil, let ids, ids.allSatisfy(StorableText.isStorable) else { return nil }
            return ids
        }
    }

    /// The answer to an empty body where one is required.
    private static let bodyRequired = APIError.badRequest("A JSON body is required")

    /// The body's bytes; nil for an empty body. Too large is 413; a non-empty body not declared
    /// as JSON is 415.
    private static func bytes(_ request: Request, limit: Int) async throws -> ByteBuffer? {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: limit)
        } catch let error as HTTPError where error.status == .contentTooLarge {
            throw APIError.payloadTooLarge
        }
        if buffer.readableBytes == 0 { return nil }
        guard JSONMediaType.matches(request.headers[.contentType]) else { throw APIError.unsupportedMediaType }
        return buffer
    }

    /// Reads `buffer` as a JSON object; anything else, nesting deeper than `maximumDepth`,
    /// bytes that are not UTF-8, or a string holding NUL (which no stored text may) is 400.
    static func object(_ buffer: ByteBuffer) throws -> JSONObject {
        guard Self.depth(of: buffer) <= Self.maximumDepth else {
            throw APIError.badRequest("The JSON body is nested too deeply")
        }
        let object = try Self.parse(buffer)
        guard Self.isStorable(.object(object)) else {
            throw APIError.badRequest("Text in the body must not contain NUL characters")
        }
        return object
    }

    private static func parse(_ buffer: ByteBuffer) throws -> JSONObject {
        // Plain documents (no fractions or exponents, no duplicate keys) are read in one pass;
        // `JSONValue.init(from:)` tries each type in turn, paying for a thrown error per miss.
        if let node = RPCJSON.parse(buffer), case .object(let object)? = JSONValue(node) {
            return object
        }
        // The fast reader refuses invalid UTF-8 and lone surrogates; Foundation's may not.
        guard buffer.withUnsafeReadableBytes({ String(validating: $0, as: UTF8.self) }) != nil else {
            throw APIError.badRequest("The body is not valid UTF-8")
        }
        do {
            return try JSONDecoder().decode(JSONObject.self, from: buffer)
        } catch {
            throw APIError.badRequest("The body must be a JSON object")
        }
    }

    /// False when any string (member name or value) holds NUL.
    static func isStorable(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): StorableText.isStorable(text)
        case .array(let values): values.allSatisfy(Self.isStorable)
        case .object(let members): members.allSatisfy { StorableText.isStorable($0.key) && Self.isStorable($0.value) }
        case .null, .bool, .int, .double: true
        }
    }

    /// The deepest bracket nesting in the bytes, ignoring brackets inside strings.
    static func depth(of buffer: ByteBuffer) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in buffer.readableBytesView {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                deepest = Swift.max(deepest, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            default: break
            }
        }
        return deepest
    }
}

/// A `200` (or other) response with JSON bytes as they are: a backend's result passed through.
func jsonResponse(_ buffer: ByteBuffer, status: HTTPResponse.Status = .ok) -> Response {
    Response(status: status, headers: [.contentType: "application/json; charset=utf-8"], body: .init(byteBuffer: buffer))
}

/// The encoder of the gateway's own response bodies: slashes left unescaped for clients. The
/// compact encoder writes members in the order a type encodes them (the same bytes for the
/// same value on every response), for a fraction of `JSONEncoder`'s time; what it cannot write
/// (floating-point numbers, say) goes to `JSONEncoder`, with keys sorted for the same reason.
enum JSONCoding {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }()

    static func encode(_ value: some Encodable) throws -> ByteBuffer {
        if let bytes = try? CompactJSONEncoder.encode(value, escapingSlashes: false) { return ByteBuffer(bytes: bytes) }
        return ByteBuffer(data: try self.encoder.encode(value))
    }
}

/// A response with an encoded value.
func jsonResponse(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
    jsonResponse(try JSONCoding.encode(value), status: status)
}
