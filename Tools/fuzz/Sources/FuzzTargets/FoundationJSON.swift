import Foundation

/// Foundation's `JSONSerialization` as the reference reading of a document the product reads
/// with `JSONDecoder`. `JSONDecoder` checks only the values it decodes: in a value it skips (an
/// unknown member, the second of two with one name) it lets raw control characters, invalid
/// UTF-8 and invalid escapes pass, which `JSONSerialization` refuses (as RFC 8259 does). `object`
/// escapes control characters and replaces invalid UTF-8 before it reads, so it reads most such
/// documents; a target compares what the product read with it where it reads the document, and
/// skips the comparison where it does not. `strictObject` reads the document as it is.
enum FoundationJSON {
    static func object(_ data: some Sequence<UInt8>) -> [String: Any]? {
        let text = String(decoding: Array(data), as: UTF8.self)
        return try? JSONSerialization.jsonObject(with: Self.escapingControlCharacters(text.utf8)) as? [String: Any]
    }

    static func strictObject(_ data: some Sequence<UInt8>) -> [String: Any]? {
        try? JSONSerialization.jsonObject(with: Data(data)) as? [String: Any]
    }

    static func escapingControlCharacters(_ data: some Sequence<UInt8>) -> Data {
        var escaped = Data()
        var inString = false
        var afterBackslash = false
        for byte in data {
            if inString {
                if afterBackslash {
                    afterBackslash = false
                } else if byte == UInt8(ascii: "\\") {
                    afterBackslash = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    escaped.append(contentsOf: Array("\\u00".utf8) + [Self.hex[Int(byte >> 4)], Self.hex[Int(byte & 15)]])
                    continue
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            escaped.append(byte)
        }
        return escaped
    }

    private static let hex = Array("0123456789abcdef".utf8)
}
