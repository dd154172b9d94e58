import Logging
import NIOCore

/// One server connection: checks `hello` first, then starts a task per request so requests
/// run concurrently, and writes each response when it is ready (in any order). The connection
/// owns its requests' tasks: when it closes (the peer went away, or the server shut it), those
/// still running are cancelled, so no request outlives its connection.
///
/// It does no method work itself (that is `RPCServerCore`'s, in the tasks). It keeps at most
/// `maximumConcurrentRequestsPerConnection` requests running by pausing reads, and when its
/// input closes (the peer is done, or the server drains) it closes once the last response is out.
final class RPCServerConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum State {
        case awaitingHello
        case ready(caller: RPCServerCore.Caller)
        case closing
    }

    private let core: RPCServerCore
    private var logger: Logger
    private var state = State.awaitingHello
    /// The running requests' tasks, by number; each removes itself when its response is written.
    private var requests: [UInt64: Task<Void, Never>] = [:]
    private var nextRequest: UInt64 = 0
    private var inFlight: Int { requests.count }
    private var inputClosed = false
    private var readHeld = false
    /// Closes the connection if no good `hello` came in time; cancelled by one.
    private var helloDeadline: Scheduled<Void>?

    init(core: RPCServerCore) {
        self.core = core
        self.logger = core.logger
    }

    func channelActive(context: ChannelHandlerContext) {
        self.logger[metadataKey: "rpc.peer"] = "\(context.remoteAddress?.description ?? "?")"
        let timeout = self.core.configuration.helloTimeout
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        self.helloDeadline = context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
            let (handler, context) = loopBound.value
            guard case .awaitingHello = handler.state else { return }
            handler.core.refusals.helloTimeout.increment()
            handler.logger.warning("Closing a connection that sent no hello in time")
            let reply = RPCRouter.encodeError(RPCError(.unauthenticated, "No hello within \(timeout)"), id: 0)
            handler.closeAfterWriting(reply, context: context)
        }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.helloDeadline?.cancel()
        self.helloDeadline = nil
        // Nobody can read these responses any more.
        for task in self.requests.values { task.cancel() }
        self.requests.removeAll()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = self.unwrapInboundIn(data)
        switch self.state {
        case .awaitingHello:
            let (reply, caller) = self.core.handshake(frame)
            if let caller {
                self.state = .ready(caller: caller)
                self.helloDeadline?.cancel()
                self.helloDeadline = nil
                self.logger[metadataKey: "rpc.caller"] = "\(caller.name)"
                context.writeAndFlush(self.wrapOutboundOut(reply), promise: nil)
            } else {
                self.logger.warning("Refused a connection without a valid hello")
                self.closeAfterWriting(reply, context: context)
            }
        case .ready(let caller):
            let number = self.nextRequest
            self.nextRequest &+= 1
            let core = self.core
            let logger = self.logger
            let eventLoop = context.eventLoop
            let loopBound = NIOLoopBound((self, context), eventLoop: eventLoop)
            // A task the connection owns (see `requests`); it inherits no executor preference,
            // so it is given the services' one.
            let task = Task(executorPreference: EventLoopTaskExecutor.shared) {
                let response = await core.respond(to: frame, caller: caller, logger: logger)
                // The task usually runs on the channel's own event loop (Swift Concurrency runs
                // on the loops in the services); then the response goes out without a hop.
                if eventLoop.inEventLoop {
                    let (handler, context) = loopBound.value
                    handler.requestFinished(number, response, context: context)
                } else {
                    eventLoop.execute {
                        let (handler, context) = loopBound.value
                        handler.requestFinished(number, response, context: context)
                    }
                }
            }
            self.requests[number] = task
        case .closing:
            break
        }
    }

    private func requestFinished(_ number: UInt64, _ response: ByteBuffer, context: ChannelHandlerContext) {
        // Gone already when the connection closed meanwhile: nothing to write to.
        guard self.requests.removeValue(forKey: number) != nil else { return }
        context.writeAndFlush(self.wrapOutboundOut(response), promise: nil)
        if self.readHeld, self.inFlight < self.core.configuration.maximumConcurrentRequestsPerConnection {
            self.readHeld = false
            context.read()
        }
        self.closeIfDrained(context: context)
    }

    /// Holds reads while the connection has as many requests running as it may.
    func read(context: ChannelHandlerContext) {
        if self.inFlight >= self.core.configuration.maximumConcurrentRequestsPerConnection {
            self.readHeld = true
        } else {
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            self.inputClosed = true
            self.closeIfDrained(context: context)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? RPCFrameError {
            self.logger.warning("Closing connection", metadata: ["error": "\(error)"])
            let reply = RPCRouter.encodeError(
                RPCError(.frameTooLarge, "Frame exceeds \(self.core.configuration.maximumFrameSize) bytes"), id: 0)
            self.closeAfterWriting(reply, context: context)
        } else {
            self.logger.debug("Connection error", metadata: ["error": "\(error)"])
            self.state = .closing
            context.close(promise: nil)
        }
    }

    private func closeIfDrained(context: ChannelHandlerContext) {
        guard self.inputClosed, self.inFlight == 0 else { return }
        if case .closing = self.state { return }
        self.state = .closing
        // Close once what is queued has been written (flushes are coalesced to the tick's end).
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.eventLoop.execute { loopBound.value.close(promise: nil) }
    }

    private func closeAfterWriting(_ reply: ByteBuffer, context: ChannelHandlerContext) {
        self.state = .closing
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(self.wrapOutboundOut(reply)).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }
}
