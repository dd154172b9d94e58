import FoundationEssentials
import NIOCore
import NIOFoundationEssentialsCompat

/// Why a call got no response. Which case decides whether it may be retried elsewhere.
enum RPCCallFailure: Error {
    /// The request never left this process: safe to send anywhere else.
    case notSent
    /// The connection closed after the request was written: the server may have run it.
    case connectionLost
    /// The deadline passed first.
    case deadlineExceeded
}

/// Decodes the `result` JSON of one call into the type its caller expects.
typealias ResultDecoder = @Sendable (ByteBuffer) throws -> any Sendable

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
/// the response with that id arrives (decoding its result with the caller's type), fails it at
/// its deadline, and fails all of them when the connection closes.
///
/// Deadlines share one timer, set for the earliest deadline of the calls in flight: when it
/// fires, every call past its deadline fails and the timer is set for the next one. A timer per
/// call (scheduled, then cancelled when the answer came, which searched the loop's scheduled
/// tasks) was 3 % of the gateway's work on a favorites page; calls are answered in
/// milliseconds and their deadlines are seconds away, so the shared timer is set about once per
/// deadline, and a call costs no timer at all.
final class RPCClientHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = RPCOutboundCall
    typealias OutboundOut = ByteBuffer

    private struct Pending {
        var promise: EventLoopPromise<any Sendable>
        var decodeResult: ResultDecoder
        var deadline: NIODeadline
    }

    private var pending: [UInt64: Pending] = [:]
    private var closed = false
    /// The shared deadline timer and when it fires; nil when none is set.
    private var timer: (task: Scheduled<Void>, deadline: NIODeadline)?

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
        self.pending[call.id] = Pending(promise: call.promise, decodeResult: call.decodeResult, deadline: call.deadline)
        if let timer = self.timer, timer.deadline <= call.deadline {
            // Set already for a call due no later.
        } else {
            self.setTimer(for: call.deadline, on: context.eventLoop)
        }
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenFailure { _ in
            loopBoundSelf.value.complete(call.id, with: .failure(RPCCallFailure.notSent))
        }
        context.write(self.wrapOutboundOut(call.frame), promise: written)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        guard let envelope = try? FrameEnvelope(frame), let id = try? envelope.unsigned(.id) else {
            // A peer that sends what we cannot read is not one to keep talking to.
            context.close(promise: nil)
            return
        }
        if id == 0 {
            // A connection-level error (frame_too_large, unauthenticated): the server closes next.
            self.failAll(with: .connectionLost)
            return
        }
        guard let decodeResult = self.pending[id]?.decodeResult else { return }  // late: the call gave up
        if let errorJSON = envelope.slice(.error) {
            let error = (try? JSONCoders.decode(RPCError.self, from: errorJSON))
                ?? RPCError(.internal, "The service's error could not be read")
            self.complete(id, with: .failure(error))
            return
        }
        do {
            let result = try decodeResult(envelope.slice(.result) ?? ByteBuffer(string: "null"))
            self.complete(id, with: .success(result))
        } catch {
            self.complete(id, with: .failure(RPCError(.internal, "The service's response could not be read")))
        }
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
        entry.promise.completeWith(result)
    }

    /// Sets the shared timer for `deadline`, replacing one set for later.
    private func setTimer(for deadline: NIODeadline, on eventLoop: any EventLoop) {
        self.timer?.task.cancel()
        let loopBoundSelf = NIOLoopBound(self, eventLoop: eventLoop)
        let task = eventLoop.scheduleTask(deadline: deadline) {
            loopBoundSelf.value.timerFired(on: eventLoop)
        }
        self.timer = (task, deadline)
    }

    /// Fails every call past its deadline, then sets the timer for the earliest one left.
    private func timerFired(on eventLoop: any EventLoop) {
        self.timer = nil
        let now = NIODeadline.now()
        var next: NIODeadline?
        var expired: [UInt64] = []
        for (id, entry) in self.pending {
            if entry.deadline <= now {
                expired.append(id)
            } else if next.map({ entry.deadline < $0 }) ?? true {
                next = entry.deadline
            }
        }
        for id in expired { self.complete(id, with: .failure(RPCCallFailure.deadlineExceeded)) }
        if let next { self.setTimer(for: next, on: eventLoop) }
    }

    private func failAll(with failure: RPCCallFailure) {
        let entries = self.pending
        self.pending.removeAll()
        self.timer?.task.cancel()
        self.timer = nil
        for entry in entries.values {
            entry.promise.fail(failure)
        }
    }
}
