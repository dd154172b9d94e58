/// One command argument: text (sent as UTF-8) or raw bytes, so binary values can be stored.
/// String literals convert, so `["SET", "k", .bytes(data)]` reads naturally.
public enum RedisArgument: Sendable, Hashable, ExpressibleByStringLiteral {
    case string(String)
    case bytes([UInt8])

    public init(stringLiteral value: String) {
        self = .string(value)
    }
}
