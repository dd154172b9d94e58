import NIOCore

/// Where the protocol's hand-written JSON goes: an envelope's `ByteBuffer`, or the byte array
/// a `RawJSON` result grows in. `EnvelopeWriter.writeQuoted` escapes strings into either, so
/// both write the same bytes.
protocol JSONByteSink {
    mutating func write(_ literal: StaticString)
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>)
    mutating func write(byte: UInt8)
}

extension ByteBuffer: JSONByteSink {
    mutating func write(_ literal: StaticString) { self.writeStaticString(literal) }
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { self.writeBytes(bytes) }
    mutating func write(byte: UInt8) { self.writeInteger(byte) }
}

/// A plain byte array: appending to it checks no exclusivity at run time, where each write
/// to a `ByteBuffer` does (a `RawJSON` page makes thousands of small writes).
extension Array: JSONByteSink where Element == UInt8 {
    mutating func write(_ literal: StaticString) {
        self.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
    mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { self.append(contentsOf: bytes) }
    mutating func write(byte: UInt8) { self.append(byte) }
}
