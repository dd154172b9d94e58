/// One RESP reply. Status and bulk strings that are valid UTF-8 are `.string`; other bulk
/// strings are `.bytes`. A nil bulk string or nil array is `.null`.
public enum RedisValue: Sendable, Hashable {
    case null
    case string(String)
    case bytes([UInt8])
    case integer(Int)
    case array([RedisValue])
    /// A server error reply; only seen in pipeline results, since a single command throws
    /// it as ``RedisError/server(_:)``.
    case error(String)

    /// The text of a string reply, or an integer reply in decimal.
    public var stringValue: String? {
        switch self {
        case .string(let text): text
        case .integer(let value): String(value)
        default: nil
        }
    }

    /// An integer reply, or a string reply holding a decimal integer (`GET` of a counter).
    public var intValue: Int? {
        switch self {
        case .integer(let value): value
        case .string(let text): Int(text)
        default: nil
        }
    }

    /// The raw bytes of a string reply, whichever way it was decoded.
    public var bytesValue: [UInt8]? {
        switch self {
        case .string(let text): Array(text.utf8)
        case .bytes(let bytes): bytes
        default: nil
        }
    }

    /// The elements of an array reply.
    public var arrayValue: [RedisValue]? {
        if case .array(let elements) = self { elements } else { nil }
    }

    public var isNull: Bool { self == .null }
}
