import NIOCore
import NIOTestUtils
import Testing

@testable import ServiceProtocol

@Suite struct FrameDecoderTests {
    private func frame(_ payload: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.utf8.count), endianness: .big)
        buffer.writeString(payload)
        return buffer
    }

    @Test func splitAndMergedFramesDecodeToTheSamePayloads() throws {
        let payloads = ["{}", #"{"v":1,"id":7,"method":"x"}"#, "", String(repeating: "é", count: 300)]
        let pairs = payloads.map { (self.frame($0), [ByteBuffer(string: $0)]) }
        try ByteToMessageDecoderVerifier.verifyDecoder(
            inputOutputPairs: pairs,
            decoderFactory: { RPCFrameDecoder(maximumFrameSize: 1024) }
        )
    }

    @Test func lengthPrefixAboveTheMaximumThrowsBeforeThePayloadArrives() {
        var decoder = RPCFrameDecoder(maximumFrameSize: 16)
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(17), endianness: .big)
        #expect(throws: RPCFrameError.frameTooLarge(length: 17, maximum: 16)) {
            _ = try decoder.decode(buffer: &buffer)
        }
    }

    @Test func frameOfExactlyTheMaximumIsAccepted() throws {
        var decoder = RPCFrameDecoder(maximumFrameSize: 4)
        var buffer = self.frame("abcd")
        #expect(try decoder.decode(buffer: &buffer) == ByteBuffer(string: "abcd"))
        #expect(buffer.readableBytes == 0)
    }

    @Test func partialLengthPrefixWaitsForMoreBytes() throws {
        var decoder = RPCFrameDecoder(maximumFrameSize: 16)
        var buffer = ByteBuffer(bytes: [0, 0])
        #expect(try decoder.decode(buffer: &buffer) == nil)
        #expect(buffer.readableBytes == 2)
    }
}
