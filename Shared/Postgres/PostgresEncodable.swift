import FoundationEssentials

/// A Swift value that can be bound as a parameter; optionals bind `nil` as NULL.
/// Write `name.postgresValue` or `PostgresValue(name)` inside a bindings array.
public protocol PostgresEncodable: Sendable {
    var postgresValue: PostgresValue { get }
}

extension PostgresValue: PostgresEncodable {
    public var postgresValue: PostgresValue { self }
}

extension String: PostgresEncodable {
    public var postgresValue: PostgresValue { .text(self) }
}

extension Substring: PostgresEncodable {
    public var postgresValue: PostgresValue { .text(String(self)) }
}

extension Int: PostgresEncodable {
    public var postgresValue: PostgresValue { .int(self) }
}

extension Int64: PostgresEncodable {
    public var postgresValue: PostgresValue { .int(Int(self)) }
}

extension Int32: PostgresEncodable {
    public var postgresValue: PostgresValue { .int(Int(self)) }
}

extension Bool: PostgresEncodable {
    public var postgresValue: PostgresValue { .bool(self) }
}

extension Double: PostgresEncodable {
    public var postgresValue: PostgresValue { .double(self) }
}

extension UUID: PostgresEncodable {
    public var postgresValue: PostgresValue { .uuid(self) }
}

extension Date: PostgresEncodable {
    public var postgresValue: PostgresValue { .timestamp(self) }
}

extension Array: PostgresEncodable where Element == UInt8 {
    public var postgresValue: PostgresValue { .bytea(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresValue: PostgresValue { self?.postgresValue ?? .null }
}
