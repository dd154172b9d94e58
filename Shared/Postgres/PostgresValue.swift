import FoundationEssentials

/// A bind parameter. Values always travel separately from the SQL text (`$1`, `$2`, ...).
public enum PostgresValue: Sendable, Hashable {
    case null
    case text(String)
    case int(Int)
    case bool(Bool)
    case uuid(UUID)
    case timestamp(Date)
    case bytea([UInt8])
    case double(Double)

    /// The value of anything encodable; `nil` becomes `.null`.
    public init(_ value: (some PostgresEncodable)?) {
        self = value?.postgresValue ?? .null
    }
}

extension PostgresValue: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .text(value) }
}

extension PostgresValue: ExpressibleByIntegerLiteral {
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension PostgresValue: ExpressibleByBooleanLiteral {
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PostgresValue: ExpressibleByFloatLiteral {
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension PostgresValue: ExpressibleByNilLiteral {
    public init(nilLiteral: ()) { self = .null }
}
