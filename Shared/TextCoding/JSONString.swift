/// Where hand-written JSON text goes: a byte array here, and in the RPC protocol an envelope's
/// `ByteBuffer` too (ServiceProtocol conforms it).
public protocol JSONByteSink {
    mutating func write(_ literal: StaticString)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func write(byte: UInt8)
}

/// A plain byte array: appending to it checks no exclusivity at run time, where each write
/// to a `ByteBuffer` does (a `RawJSON` page makes thousands of small writes).
extension Array: JSONByteSink where Element == UInt8 {
    @inlinable
    public mutating func write(_ literal: StaticString) {
        self.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
    @inlinable
    public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { self.append(contentsOf: bytes) }
    @inlinable
    public mutating func write(byte: UInt8) { self.append(byte) }
}

/// Strings as JSON text: the one escaper of the RPC envelopes, the compact JSON encoder and
/// the JSON log lines, so all three write the same bytes for the same text.
public enum JSONString {
    /// Writes `text` as a JSON string, quotes included: `"`, `\` and the control characters
    /// escaped (`\b \f \n \r \t`, the others as `\u00XX`), and `/` as `\/` when
    /// `escapingSlashes` (what Foundation's encoder does by default). Everything else,
    /// non-ASCII included, is written as its UTF-8 bytes.
    @inlinable
    public static func write<Sink: JSONByteSink>(_ text: String, escapingSlashes: Bool = false, to sink: inout Sink) {
        // A native string's bytes are checked and copied in place: most are plain.
        let written: Void? = text.utf8.withContiguousStorageIfAvailable { storage in
            self.write(utf8: storage, escapingSlashes: escapingSlashes, to: &sink)
        }
        if written == nil {
            sink.write("\"")
            for byte in text.utf8 { self.writeEscaped(byte, escapingSlashes: escapingSlashes, to: &sink) }
            sink.write("\"")
        }
    }

    /// Text given as its UTF-8 bytes (a text cell of a Postgres row, read in place), written as
    /// `write` writes a `String` of them: no `String` in between.
    @inlinable
    public static func write<Sink: JSONByteSink>(utf8 bytes: UnsafeBufferPointer<UInt8>, escapingSlashes: Bool = false, to sink: inout Sink) {
        sink.write("\"")
        // Without escaping, the slash test repeats the quote's: a slash is then plain.
        let slash: UInt8 = escapingSlashes ? UInt8(ascii: "/") : UInt8(ascii: "\"")
        if bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == slash }) {
            for byte in bytes { self.writeEscaped(byte, escapingSlashes: escapingSlashes, to: &sink) }
        } else {
            sink.write(bytes)
        }
        sink.write("\"")
    }

    /// `text` as `write` writes it, or `null` for nil: an optional member as `Encodable`
    /// writes it with `encode` (not `encodeIfPresent`).
    @inlinable
    public static func writeOrNull<Sink: JSONByteSink>(_ text: String?, escapingSlashes: Bool = false, to sink: inout Sink) {
        if let text { self.write(text, escapingSlashes: escapingSlashes, to: &sink) } else { sink.write("null") }
    }

    @inlinable
    static func writeEscaped<Sink: JSONByteSink>(_ byte: UInt8, escapingSlashes: Bool, to sink: inout Sink) {
        switch byte {
        case UInt8(ascii: "\""): sink.write(#"\""#)
        case UInt8(ascii: "\\"): sink.write(#"\\"#)
        case UInt8(ascii: "/") where escapingSlashes: sink.write(#"\/"#)
        case 0x08: sink.write(#"\b"#)
        case 0x0C: sink.write(#"\f"#)
        case 0x0A: sink.write(#"\n"#)
        case 0x0D: sink.write(#"\r"#)
        case 0x09: sink.write(#"\t"#)
        case 0..<0x20:
            let hex: StaticString = "0123456789abcdef"
            sink.write(#"\u00"#)
            sink.write(byte: hex.utf8Start[Int(byte >> 4)])
            sink.write(byte: hex.utf8Start[Int(byte & 0x0F)])
        default: sink.write(byte: byte)
        }
    }
}
