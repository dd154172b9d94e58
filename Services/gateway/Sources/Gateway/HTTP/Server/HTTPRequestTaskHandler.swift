import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypesHTTP1
import ServiceProtocol

/// One HTTP/1 connection of the public server: gathers a request's head and body from NIO's
/// decoder, answers it with the router in a task of its own on the connection's event loop (the
/// services' `EventLoopTaskExecutor`), and writes the whole response from the loop as one buffer
/// (`HTTP1ResponseBytes`) in one flush.
///
/// A connection has one request answered at a time, in the order they came: requests a client
/// pipelines wait here, whole, until the one before is answered, and while any waits the
/// channel's reads are held (so a client cannot queue more than one read's worth). NIO's own
/// pipelining assistance did the same but held the reads after every request until its response
/// was out, which took the socket out of epoll and put it back (two `epoll_ctl` calls a request)
/// for every client, though almost none pipelines.
///
/// A body is kept up to `maxBodyBytes` + 1 bytes: the handlers read bodies with that limit
/// (`collectBody(upTo:)`), so one byte more is all it takes for them to answer 413 as they
/// would to the whole. A request that declares a longer body is answered at once (its
/// `Content-Length` alone gets the 413 of `BodyLimitMiddleware`), and a body that grows past the
/// limit is answered when it does; either way the rest of the body is read and dropped, and the
/// connection stays open for the next request.
///
/// Graceful shutdown (`ChannelShouldQuiesceEvent`, from Hummingbird's `Server`) closes an idle
/// connection at once and a busy one once the requests it has are answered, as Hummingbird's
/// `HTTPConnectionStateHandler` did.
///
/// Why not Hummingbird's own server: it runs a connection as a `NIOAsyncChannel` iterated by a
/// task, which costs two or three suspensions a request and a conversion of each part both ways
/// (docs/benchmarks.md, "The HTTP floor, a layer at a time"). Why not NIO's response encoder
/// behind `HTTP1ToHTTPServerCodec`: each part of a response crossed both and became a buffer of
/// its own.
final class HTTPRequestTaskHandler<Responder: HTTPResponder>: ChannelDuplexHandler
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Reading {
        /// Between requests.
        case idle
        /// A request's body is coming.
        case gathering(HTTPRequest, ByteBuffer)
        /// The request was answered before its body ended; its remaining parts are dropped.
        case dropping
    }

    private let responder: Responder
    private let maxBodyBytes: Int
    private let headers: ResponseHeaders
    private let logger: Logger
    private var reading = Reading.idle
    private var active = true
    /// A request's task is running: its response is not written yet.
    private var answering = false
    /// Whole requests that came while one was being answered, in order.
    private var waiting = CircularBuffer<Request>()
    /// The channel asked for a read while requests waited: made once none does.
    private var readPending = false
    /// Bytes that are not HTTP came after the requests being answered: a 400 follows them.
    private var refusing = false
    /// The server is shutting down: the connection closes once the requests it has are answered.
    private var quiescing = false

    init(responder: Responder, maxBodyBytes: Int, headers: ResponseHeaders, logger: Logger) {
        self.responder = responder
        self.maxBodyBytes = maxBodyBytes
        self.headers = headers
        self.logger = logger
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.active = false
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch (self.unwrapInboundIn(data), self.reading) {
        case (.head(let http1Head), _):
            guard let head = try? HTTPRequest(http1Head, secure: false, splitCookie: false) else {
                // A method or target HTTP's types cannot hold: nothing this server answers.
                self.reading = .dropping
                context.close(promise: nil)
                return
            }
            if let length = head.headerFields[.contentLength].flatMap(Int.init), length > self.maxBodyBytes {
                self.reading = .dropping
                self.respond(to: Request(head: head, body: RequestBody(buffer: ByteBuffer())), context: context)
            } else {
                self.reading = .gathering(head, context.channel.allocator.buffer(capacity: 0))
            }
        case (.body(var part), .gathering(let head, var body)):
            self.reading = .idle  // the buffer is uniquely referenced while it grows
            body.writeBuffer(&part)
            if body.readableBytes > self.maxBodyBytes {
                self.reading = .dropping
                body.moveWriterIndex(to: body.readerIndex + self.maxBodyBytes + 1)
                self.respond(to: Request(head: head, body: RequestBody(buffer: body)), context: context)
            } else {
                self.reading = .gathering(head, body)
            }
        case (.end, .gathering(let head, let body)):
            self.reading = .idle
            self.respond(to: Request(head: head, body: RequestBody(buffer: body)), context: context)
        case (.end, _):
            self.reading = .idle
        case (.body, _):
            break
        }
    }

    func read(context: ChannelHandlerContext) {
        if self.waiting.isEmpty {
            context.read()
        } else {
            self.readPending = true
        }
    }

    /// Bytes NIO cannot parse as HTTP get a 400 and the connection is closed, after the requests
    /// that came before them are answered; any other error closes the connection.
    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        self.logger.debug("HTTP connection error, closing it", metadata: ["error": "\(error)"])
        guard error is HTTPParserError else {
            context.close(promise: nil)
            return
        }
        if self.answering {
            self.refusing = true
        } else {
            self.refuse(context: context)
        }
    }

    private func refuse(context: ChannelHandlerContext) {
        var head = HTTPResponse(status: .badRequest, headerFields: [.connection: "close", .contentLength: "0"])
        self.headers.add(to: &head.headerFields)
        self.send(head, GatheredBody(), answering: .get, thenClose: true, context: context)
    }

    /// Writes a whole response and flushes; closes the connection once it is out when `close`.
    private func send(
        _ head: HTTPResponse, _ body: GatheredBody, answering method: HTTPRequest.Method, thenClose close: Bool,
        context: ChannelHandlerContext
    ) {
        var buffer = context.channel.allocator.buffer(capacity: 0)
        HTTP1ResponseBytes.write(head, body: body, answering: method, into: &buffer)
        guard close else {
            context.writeAndFlush(self.wrapOutboundOut(buffer), promise: nil)
            return
        }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        context.writeAndFlush(self.wrapOutboundOut(buffer)).whenComplete { _ in
            loopBound.value.close(promise: nil)
        }
    }

    /// Graceful shutdown: an idle connection closes now, a busy one after its answers.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard event is ChannelShouldQuiesceEvent else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if self.hasRequestInHand {
            self.quiescing = true
        } else {
            context.close(promise: nil)
        }
    }

    /// A request is being read, answered or waits to be.
    private var hasRequestInHand: Bool {
        self.answering || self.hasRequestBehind
    }

    /// A request is being read or waits for the one being answered.
    private var hasRequestBehind: Bool {
        if case .gathering = self.reading { return true }
        return !self.waiting.isEmpty
    }

    /// Answers `request` now, or after the requests before it when one is being answered.
    private func respond(to request: Request, context: ChannelHandlerContext) {
        if self.answering {
            self.waiting.append(request)
        } else {
            self.answer(request, context: context)
        }
    }

    /// Answers `request` in a task on the services' executor, then writes the response on the loop.
    private func answer(_ request: Request, context: ChannelHandlerContext) {
        self.answering = true
        let answer = Answer(
            responder: self.responder, headers: self.headers, logger: self.logger, channel: context.channel,
            method: request.method, closeAfter: request.headers[.connection].map { $0.lowercased().contains("close") } ?? false,
            connection: NIOLoopBound((self, context), eventLoop: context.eventLoop))
        Task(executorPreference: EventLoopTaskExecutor.shared) {
            await answer.run(request)
        }
    }

    /// What a request's task needs: the router, and the way back to the connection.
    private struct Answer: Sendable {
        let responder: Responder
        let headers: ResponseHeaders
        let logger: Logger
        let channel: any Channel
        let method: HTTPRequest.Method
        let closeAfter: Bool
        let connection: NIOLoopBound<(HTTPRequestTaskHandler, ChannelHandlerContext)>

        func run(_ request: Request) async {
            let (head, body) = await self.response(to: request)
            // The task usually runs on the connection's own loop: then the response goes out without a hop.
            let eventLoop = self.channel.eventLoop
            if eventLoop.inEventLoop {
                self.write(head, body)
            } else {
                eventLoop.execute { self.write(head, body) }
            }
        }

        /// The router's response, its body gathered; a 500 without a body when the router throws
        /// (the gateway's `ErrorMiddleware` answers every error it knows).
        private func response(to request: Request) async -> (HTTPResponse, GatheredBody) {
            let gathered = GatheredBody()
            var head: HTTPResponse
            do {
                let source = ApplicationRequestContextSource(channel: self.channel, logger: self.logger)
                let response = try await self.responder.respond(to: request, context: Responder.Context(source: source))
                head = response.head
                try await response.body.write(gathered)
            } catch {
                self.logger.debug("Unrecognised error", metadata: ["error.type": "\(error)"])
                head = HTTPResponse(status: .internalServerError, headerFields: [.contentLength: "0"])
                gathered.buffers.removeAll()
            }
            self.headers.add(to: &head.headerFields)
            return (head, gathered)
        }

        private func write(_ head: HTTPResponse, _ body: GatheredBody) {
            let (handler, context) = self.connection.value
            handler.write(head, body, answering: self.method, closeAfter: self.closeAfter, context: context)
        }
    }

    fileprivate func write(
        _ head: HTTPResponse, _ body: GatheredBody, answering method: HTTPRequest.Method, closeAfter: Bool,
        context: ChannelHandlerContext
    ) {
        guard self.active else { return }
        // After a request that asks to close, the requests that came behind it are not answered;
        // while shutting down, the last request in hand closes the connection. Either way
        // `answering` stays set: requests read before the close only wait.
        let close = closeAfter || (self.quiescing && !self.hasRequestBehind)
        self.send(head, body, answering: method, thenClose: close, context: context)
        guard !close else { return }
        self.answering = false
        if let next = self.waiting.popFirst() {
            self.answer(next, context: context)
        } else if self.refusing {
            self.refuse(context: context)
            return
        }
        if self.waiting.isEmpty, self.readPending {
            self.readPending = false
            context.read()
        }
    }
}

/// A response body's buffers, gathered in the request's task for one write on the loop.
final class GatheredBody: ResponseBodyWriter, @unchecked Sendable {
    // Unchecked: written by the request's task only, then handed to the loop once it is done.
    var buffers: [ByteBuffer] = []
    var trailers: HTTPFields?

    func write(_ buffer: ByteBuffer) async throws { self.buffers.append(buffer) }
    func finish(_ trailingHeaders: HTTPFields?) async throws { self.trailers = trailingHeaders }
}
