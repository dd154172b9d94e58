import NIOCore

/// Splits the inbound byte stream into frames: a 4-byte big-endian payload length, then the
/// payload. A length prefix above `maximumFrameSize` throws at once, before any payload is
/// buffered, so a hostile peer cannot make us wait for (or allocate) a huge frame.
public struct RPCFrameDecoder: NIOSingleStepByteToMessageDecoder {
    public typealias InboundOut = ByteBuffer

    /// The largest payload accepted, in bytes.
    public let maximumFrameSize: Int

    public init(maximumFrameSize: Int) {
        self.maximumFrameSize = maximumFrameSize
    }

    public mutating func decode(buffer: inout ByteBuffer) throws -> ByteBuffer? {
        guard let length = buffer.getInteger(at: buffer.readerIndex, endianness: .big, as: UInt32.self) else {
            return nil
        }
        guard Int(length) <= self.maximumFrameSize else {
            throw RPCFrameError.frameTooLarge(length: Int(length), maximum: self.maximumFrameSize)
        }
        guard buffer.readableBytes >= 4 + Int(length) else { return nil }
        buffer.moveReaderIndex(forwardBy: 4)
        return buffer.readSlice(length: Int(length))
    }

    public mutating func decodeLast(buffer: inout ByteBuffer, seenEOF: Bool) throws -> ByteBuffer? {
        try self.decode(buffer: &buffer)
    }
}

/// Framing failures; each closes the connection.
public enum RPCFrameError: Error, Equatable {
    case frameTooLarge(length: Int, maximum: Int)
}
