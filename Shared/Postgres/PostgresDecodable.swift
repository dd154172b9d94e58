import Foundation
import TextCoding

/// A Swift type a result cell (text format) can be read as. `Optional` of a decodable type
/// reads SQL NULL as `nil`; every other type rejects NULL.
public protocol PostgresDecodable: Sendable {
    /// The value for a non-NULL cell, or nil when `text` is not a valid `Self` for `type`.
    static func decode(postgresText text: String, type: PostgresDataType) -> Self?
    /// What SQL NULL reads as; nil when NULL is not allowed.
    static var decodedNull: Self? { get }
}

extension PostgresDecodable {
    public static var decodedNull: Self? { nil }
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Self? {
        Wrapped.decode(postgresText: text, type: type).map { .some($0) }
    }

    public static var decodedNull: Self? { .some(nil) }
}

extension String: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> String? { text }
}

extension Int: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int? { Int(text) }
}

extension Int64: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int64? { Int64(text) }
}

extension Int32: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int32? { Int32(text) }
}

extension Int16: PostgresDecodable {
    public static func decode(postgresText text: String, type: PostgresDataType) -> Int16? { Int16(text) }
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
