import Foundation
import NIOCore
import NIOFoundationCompat

/// Why a call got no response. Which case decides whether it may be retried elsewhere.
enum RPCCallFailure: Error {
    /// The request never left this process: safe to send anywhere else.
    case notSent
    /// The connection closed after the request was written: the server may have run it.
    case connectionLost
    /// The deadline passed first.
    case deadlineExceeded
}

/// One request on its way out: the encoded frame, how to decode its result, the promise its
/// response completes, and when to give up waiting.
struct RPCOutboundCall: Sendable {
    var id: UInt64
    var frame: ByteBuffer
    var decodeResult: ResultDecoder
    var promise: EventLoopPromise<any Sendable>
    var deadline: NIODeadline
}

/// Multiplexes calls over one connection: keeps every call in flight by id, completes it when
/// the response with that id arrives (decoding it in the same pass that finds the id), fails
/// it at its deadline, and fails all of them when the connection closes.
final class RPCClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RPCOutboundCall
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var promise: EventLoopPromise<any Sendable>
        var decodeResult: ResultDecoder
        var timeout: Scheduled<Void>
    }

    private var pending: [UInt64: Pending] = [:]
    private var closed = false
    private let lookup = ResultDecoderLookup()
    private let decoder = JSONDecoder()

    init() {
        self.decoder.userInfo[ResultDecoderLookup.userInfoKey] = self.lookup
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        self.lookup.decoderForID = { id in loopBoundSelf.value.pending[id]?.decodeResult }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.lookup.decoderForID = { _ in nil }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let call = self.unwrapOutboundIn(data)
        // From here on this handler completes the call; the write promise only tells the
        // sender that it did (a call that never reaches this handler fails through it).
        promise?.succeed(())
        guard !self.closed else {
            call.promise.fail(RPCCallFailure.notSent)
            return
        }
        let loopBoundSelf = NIOLoopBound(self, eventLoop: context.eventLoop)
        let timeout = context.eventLoop.scheduleTask(deadline: call.deadline) {
            loopBoundSelf.value.complete(call.id, with: .failure(RPCCallFailure.deadlineExceeded))
        }
        self.pending[call.id] = Pending(promise: call.promise, decodeResult: call.decodeResult, timeout: timeout)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { _ in
            loopBoundSelf.value.complete(call.id, with: .failure(RPCCallFailure.notSent))
        }
        context.write(self.wrapOutboundOut(call.frame), promise: written)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        guard let response = try? self.decoder.decode(IncomingResponse.self, from: frame) else {
            // A peer that sends what we cannot read is not one to keep talking to.
            context.close(promise: nil)
            return
        }
        if response.id == 0 {
            // A connection-level error (frame_too_large, unauthenticated): the server closes next.
            self.failAll(with: .connectionLost)
            return
        }
        guard let outcome = response.outcome else { return }  // late: the call already gave up
        self.complete(response.id, with: outcome.mapError { $0 as any Error })
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.closed = true
        self.failAll(with: .connectionLost)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.failAll(with: .connectionLost)
        context.close(promise: nil)
    }

    private func complete(_ id: UInt64, with result: Result<any Sendable, any Error>) {
        guard let entry = self.pending.removeValue(forKey: id) else { return }
        entry.timeout.cancel()
        entry.promise.completeWith(result)
    }

    private func failAll(with failure: RPCCallFailure) {
        let entries = self.pending
        self.pending.removeAll()
        for entry in entries.values {
            entry.timeout.cancel()
            entry.promise.fail(failure)
        }
    }
}
