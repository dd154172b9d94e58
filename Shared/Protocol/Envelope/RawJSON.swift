import FoundationEssentials
import NIOCore
import TextCoding

/// JSON text written by hand, for a result on a hot path where `JSONEncoder`'s cost per
/// value dominates (a page of 50 favorites). A handler registered with
/// `RPCRouter.registerRaw` returns one and the router places its bytes in the response
/// envelope as they are, so the writer must produce one complete, valid JSON value.
public struct RawJSON: Sendable {
    /// The JSON so far: `JSONBytes`, not a `ByteBuffer` nor a `[UInt8]`. A page is thousands of
    /// small writes; each write to a `ByteBuffer` checks exclusivity at run time, and each
    /// append to an array goes through `append(contentsOf:)` and `memmove`.
    @usableFromInline var storage: JSONBytes

    public init(capacity: Int = 256) {
        self.storage = JSONBytes(capacity: capacity)
    }

    /// The JSON written, as a buffer.
    public var bytes: ByteBuffer {
        self.storage.withUnsafeBytes { EnvelopeWriter.allocator.buffer(bytes: $0) }
    }

    /// The JSON written, as bytes (to seal or hash it as it is sent).
    public var utf8: [UInt8] { self.storage.array }

    /// The number of bytes written.
    var count: Int { self.storage.count }

    /// Appends the JSON written to `buffer` (an envelope around it).
    func write(to buffer: inout ByteBuffer) {
        self.storage.withUnsafeBytes { buffer.writeBytes($0) }
    }

    /// Punctuation and member names written as they are, e.g. `#"{"items":["#`. Always
    /// inlined, as `JSONBytes.write` is: the literal's length is then known where it is written.
    @inlinable @inline(__always)
    public mutating func append(_ literal: StaticString) {
        self.storage.write(literal)
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    public mutating func append(string: String) {
        EnvelopeWriter.writeQuoted(string, to: &self.storage)
    }

    /// A JSON string of text given as its UTF-8 bytes (a text cell read in place, say),
    /// escaped as `append(string:)` escapes.
    public mutating func append(utf8String bytes: UnsafeRawBufferPointer) {
        JSONString.write(utf8: bytes.bindMemory(to: UInt8.self), to: &self.storage)
    }

    /// A JSON string, or `null` for nil.
    public mutating func append(string: String?) {
        if let string { self.append(string: string) } else { self.storage.write("null") }
    }

    /// An integer in decimal digits, as `String(integer)` spells it.
    public mutating func append(integer: Int64) {
        self.storage.write(atMost: DecimalDigits.maximumCount) { DecimalDigits.write(integer, to: $0) }
    }

    /// A number, or `null` for nil.
    public mutating func append(integer: Int64?) {
        if let integer { self.append(integer: integer) } else { self.storage.write("null") }
    }

    /// A time as a JSON string, `"2026-11-22T03:23:59.123Z"` (`RFC3339Milliseconds`), written
    /// without a `String` in between.
    public mutating func append(rfc3339Milliseconds milliseconds: Int64) {
        RFC3339Milliseconds.writeQuoted(milliseconds, to: &self.storage)
    }

    /// A time as a JSON string, or `null` for nil.
    public mutating func append(rfc3339Milliseconds milliseconds: Int64?) {
        if let milliseconds { self.append(rfc3339Milliseconds: milliseconds) } else { self.storage.write("null") }
    }

    /// A UUID as a JSON string in upper case, as `JSONEncoder` writes one (`uuidString`).
    public mutating func append(uppercaseUUID uuid: UUID) {
        uuid.appendUppercaseJSONString(to: &self.storage)
    }

    @inlinable
    public mutating func append(bool: Bool) {
        self.storage.write(bool: bool)
    }
}
