import NIOCore
import NIOExtras

extension ChannelPipeline.SynchronousOperations {
    /// Adds the protocol's framing: length-prefixed frames in, length prefix added on the way
    /// out, and flushes coalesced per event-loop tick.
    public func addRPCFraming(maximumFrameSize: Int) throws {
        try self.addHandler(ByteToMessageHandler(RPCFrameDecoder(maximumFrameSize: maximumFrameSize)))
        try self.addHandler(LengthFieldPrepender(lengthFieldBitLength: .thirtyTwoBits))
        try self.addHandler(FlushCoalescingHandler())
    }
}
