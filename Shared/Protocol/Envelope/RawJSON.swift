import NIOCore
import TextCoding

/// JSON text written by hand, for a result on a hot path where `JSONEncoder`'s cost per
/// value dominates (a page of 50 favorites). A handler registered with
/// `RPCRouter.registerRaw` returns one and the router places its bytes in the response
/// envelope as they are, so the writer must produce one complete, valid JSON value.
public struct RawJSON: Sendable {
    public private(set) var bytes: ByteBuffer

    public init(capacity: Int = 256) {
        self.bytes = EnvelopeWriter.allocator.buffer(capacity: capacity)
    }

    /// Punctuation and member names written as they are, e.g. `#"{"items":["#`.
    public mutating func append(_ literal: StaticString) {
        self.bytes.writeStaticString(literal)
    }

    /// A JSON string: quotes, backslashes and control characters escaped.
    public mutating func append(string: String) {
        EnvelopeWriter.writeQuoted(string, to: &self.bytes)
    }

    /// A JSON string, or `null` for nil.
    public mutating func append(string: String?) {
        if let string { self.append(string: string) } else { self.bytes.writeStaticString("null") }
    }

    public mutating func append(integer: Int64) {
        self.bytes.writeString(String(integer))
    }

    /// A number, or `null` for nil.
    public mutating func append(integer: Int64?) {
        if let integer { self.append(integer: integer) } else { self.bytes.writeStaticString("null") }
    }

    /// A time as a JSON string, `"2026-11-22T03:23:59.123Z"` (`RFC3339Milliseconds`), written
    /// straight into the buffer.
    public mutating func append(rfc3339Milliseconds milliseconds: Int64) {
        self.bytes.writeWithUnsafeMutableBytes(minimumWritableBytes: RFC3339Milliseconds.formattedCount + 2) { out in
            out[0] = UInt8(ascii: "\"")
            let count = RFC3339Milliseconds.write(milliseconds, to: UnsafeMutableRawBufferPointer(rebasing: out[1...]))
            out[count + 1] = UInt8(ascii: "\"")
            return count + 2
        }
    }

    /// A time as a JSON string, or `null` for nil.
    public mutating func append(rfc3339Milliseconds milliseconds: Int64?) {
        if let milliseconds { self.append(rfc3339Milliseconds: milliseconds) } else { self.bytes.writeStaticString("null") }
    }

    public mutating func append(bool: Bool) {
        if bool { self.bytes.writeStaticString("true") } else { self.bytes.writeStaticString("false") }
    }
}
