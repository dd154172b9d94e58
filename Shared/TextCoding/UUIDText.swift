import FoundationEssentials

extension UUID {
    /// The UUID `text` spells as `8-4-4-4-12` hexadecimal digits (either case), as
    /// `UUID(uuidString:)` reads it, without its `sscanf` per call: ids are read from every RPC
    /// request's parameters and from Postgres rows. Nil for anything else.
    public init?(text: String) {
        var text = text
        let uuid: uuid_t? = text.withUTF8 { Self.parse($0) }
        guard let uuid else { return nil }
        self.init(uuid: uuid)
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> uuid_t? {
        guard bytes.count == 36, bytes[8] == UInt8(ascii: "-"), bytes[13] == UInt8(ascii: "-"),
            bytes[18] == UInt8(ascii: "-"), bytes[23] == UInt8(ascii: "-")
        else { return nil }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let complete = withUnsafeMutableBytes(of: &uuid) { out -> Bool in
            var index = 0
            for byte in 0..<16 {
                if index == 8 || index == 13 || index == 18 || index == 23 { index += 1 }
                guard let high = HexDigit.value(bytes[index]), let low = HexDigit.value(bytes[index + 1]) else { return false }
                out[byte] = high << 4 | low
                index += 2
            }
            return true
        }
        return complete ? uuid : nil
    }

    /// The UUID spelled `8-4-4-4-12` in lowercase hexadecimal, as ids appear in the API, tokens
    /// and logs: `uuidString.lowercased()` without its `snprintf` and second string.
    public var lowercasedText: String {
        String(unsafeUninitializedCapacity: 36) { Self.spell(self.uuid, into: $0, digits: Self.lowercaseDigits) }
    }

    /// The 36 bytes of the UUID's text, uppercase as `uuidString` spells it (JSON encoding
    /// writes that); `bytes` is at least 36 long. Returns 36.
    public func writeUppercaseText(into bytes: UnsafeMutableBufferPointer<UInt8>) -> Int {
        Self.spell(self.uuid, into: bytes, digits: Self.uppercaseDigits)
    }

    /// The UUID as a JSON string, quotes included, uppercase as `JSONEncoder` writes it
    /// (`uuidString`, which formats with `snprintf`): the 38 bytes are spelled in place, then
    /// written to `sink` at once. `RawJSON` and the compact encoder both write ids with it.
    @inlinable
    public func appendUppercaseJSONString<Sink: JSONByteSink>(to sink: inout Sink) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 38) { text in
            text[0] = UInt8(ascii: "\"")
            _ = self.writeUppercaseText(into: UnsafeMutableBufferPointer(rebasing: text[1..<37]))
            text[37] = UInt8(ascii: "\"")
            sink.write(UnsafeBufferPointer(text))
        }
    }

    private static let lowercaseDigits: StaticString = "0123456789abcdef"
    private static let uppercaseDigits: StaticString = "0123456789ABCDEF"

    private static func spell(_ uuid: uuid_t, into out: UnsafeMutableBufferPointer<UInt8>, digits: StaticString) -> Int {
        let digits = UnsafeBufferPointer(start: digits.utf8Start, count: 16)
        withUnsafeBytes(of: uuid) { bytes in
            var index = 0
            for byte in 0..<16 {
                if byte == 4 || byte == 6 || byte == 8 || byte == 10 {
                    out[index] = UInt8(ascii: "-")
                    index += 1
                }
                out[index] = digits[Int(bytes[byte] >> 4)]
                out[index + 1] = digits[Int(bytes[byte] & 0x0F)]
                index += 2
            }
        }
        return 36
    }
}
