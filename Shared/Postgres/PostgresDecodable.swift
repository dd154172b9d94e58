import FoundationEssentials
import TextCoding

/// A Swift type a result cell (text format) can be read as. `Optional` of a decodable type
/// reads SQL NULL as `nil`; every other type rejects NULL.
public protocol PostgresDecodable: Sendable {
    /// The value for a non-NULL cell, or nil when `text` is not a valid `Self` for `type`.
    static func decode(postgresText text: String, type: PostgresDataType) -> Self?
    /// The same from the cell's bytes (UTF-8), as rows hold them: by default their text read
    /// with `decode(postgresText:type:)`; integers, booleans and text read the bytes directly.
    static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Self?
    /// The value of a non-NULL cell in `type`'s binary form (`PostgresResultFormat.binary`), or
    /// nil when this type does not read that form: by default none does; text, the integers
    /// and booleans do.
    static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Self?
    /// What SQL NULL reads as; nil when NULL is not allowed.
    static var decodedNull: Self? { get }
}

extension PostgresDecodable {
    public static var decodedNull: Self? { nil }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Self? {
        decode(postgresText: String(decoding: bytes, as: UTF8.self), type: type)
    }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Self? { nil }
}

// Inlinable so that a row's `decode` specialized for `T?` reads the cell as `T` without
// looking up generic metadata at run time.
extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    @inlinable
    public static func decode(postgresText text: String, type: PostgresDataType) -> Self? {
        Wrapped.decode(postgresText: text, type: type).map { .some($0) }
    }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Self? {
        guard let value = Wrapped.decode(postgresBytes: bytes, type: type) else { return nil }
        return .some(value)
    }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Self? {
        guard let value = Wrapped.decode(postgresBinary: bytes, type: type) else { return nil }
        return .some(value)
    }

    public static var decodedNull: Self? { .some(nil) }
}

extension String: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> String? { text }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> String? {
        String(decoding: bytes, as: UTF8.self)
    }

    /// Text types' binary form is their UTF-8 text; any other type's is not text.
    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> String? {
        guard type.isText else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Int: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int? { Int(text) }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int? {
        PostgresInteger.parse(bytes)
    }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int? {
        PostgresInteger.binary(bytes, type: type)
    }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int64? { Int64(text) }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int64? {
        PostgresInteger.parse(bytes)
    }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int64? {
        PostgresInteger.binary(bytes, type: type)
    }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int32? { Int32(text) }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int32? {
        PostgresInteger.parse(bytes)
    }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int32? {
        PostgresInteger.binary(bytes, type: type)
    }
}

extension Int16: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int16? { Int16(text) }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int16? {
        PostgresInteger.parse(bytes)
    }

    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Int16? {
        PostgresInteger.binary(bytes, type: type)
    }
}

/// Decimal integer text read from bytes as `Int(_: String)` reads it: an optional sign, then
/// one or more ASCII digits, nothing else, within the type's range.
public enum PostgresInteger {
    /// A `smallint`, `integer` or `bigint` in binary form (two, four or eight bytes, most
    /// significant first) as `T`; nil for another type or length, or a value `T` cannot hold.
    @inlinable
    public static func binary<T: FixedWidthInteger & SignedInteger>(_ bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> T? {
        switch (type, bytes.count) {
        case (.int8, 8): T(exactly: Int64(bigEndian: bytes.loadUnaligned(as: Int64.self)))
        case (.int4, 4): T(exactly: Int32(bigEndian: bytes.loadUnaligned(as: Int32.self)))
        case (.int2, 2): T(exactly: Int16(bigEndian: bytes.loadUnaligned(as: Int16.self)))
        default: nil
        }
    }

    @inlinable
    public static func parse<T: FixedWidthInteger & SignedInteger>(_ bytes: UnsafeRawBufferPointer) -> T? {
        var index = 0
        var negative = false
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            index = 1
        }
        guard index < bytes.count else { return nil }
        var value: T = 0
        while index < bytes.count {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? times10.subtractingReportingOverflow(T(digit)) : times10.addingReportingOverflow(T(digit))
            guard !overflow1, !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }
}

extension Double: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Double? { Double(text) }
}

extension Bool: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Bool? {
        switch text {
        case "t", "true": true
        case "f", "false": false
        default: nil
        }
    }

    @inlinable
    public static func decode(postgresBytes bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Bool? {
        if bytes.count == 1 {
            switch bytes[0] {
            case UInt8(ascii: "t"): return true
            case UInt8(ascii: "f"): return false
            default: return nil
            }
        }
        return decode(postgresText: String(decoding: bytes, as: UTF8.self), type: type)
    }

    /// A `boolean` in binary form: one byte, 1 or 0.
    @inlinable
    public static func decode(postgresBinary bytes: UnsafeRawBufferPointer, type: PostgresDataType) -> Bool? {
        guard type == .bool, bytes.count == 1 else { return nil }
        switch bytes[0] {
        case 1: return true
        case 0: return false
        default: return nil
        }
    }
}

extension UUID: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> UUID? {
        UUID(text: text)
    }
}

extension Date: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Date? {
        TimestampText.parse(text)
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// bytea arrives as hex (`\x00ff`), the server default since 9.0.
    public static func decode(postgresText text: String, type: PostgresDataType) -> [UInt8]? {
        guard type == .bytea else { return nil }
        let hex = Array(text.utf8)
        guard hex.count >= 2, hex[0] == UInt8(ascii: "\\"), hex[1] == UInt8(ascii: "x"), hex.count % 2 == 0
        else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity((hex.count - 2) / 2)
        var index = 2
        while index < hex.count {
            guard let high = HexDigit.value(hex[index]), let low = HexDigit.value(hex[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
