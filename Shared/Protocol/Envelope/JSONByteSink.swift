import NIOCore
import TextCoding

/// An envelope's `ByteBuffer` takes the protocol's hand-written JSON as the byte array a
/// `RawJSON` result grows in does (`JSONByteSink`, TextCoding), so both write the same bytes.
extension ByteBuffer: JSONByteSink {
    public mutating func write(_ literal: StaticString) { self.writeStaticString(literal) }
    public mutating func write(_ bytes: UnsafeBufferPointer<UInt8>) { self.writeBytes(bytes) }
    public mutating func write(byte: UInt8) { self.writeInteger(byte) }
}
