import FloorRoute
import FloorServer
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Gathers a request's head and body, then answers it with Hummingbird's router in a task of
/// its own on the connection's event loop, and writes the response from the loop.
final class RouterHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    private let responder: RouterResponder<BasicRequestContext>
    private let logger: Logger
    private var head: HTTPRequest?
    private var body = ByteBuffer()

    init(responder: RouterResponder<BasicRequestContext>, logger: Logger) {
        self.responder = responder
        self.logger = logger
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            self.body.clear()
        case .body(var part):
            self.body.writeBuffer(&part)
        case .end:
            guard let head = self.head else { return }
            let request = Request(head: head, body: RequestBody(buffer: self.body))
            let (channel, responder, logger) = (context.channel, self.responder, self.logger)
            let eventLoop = context.eventLoop
            let loopBound = NIOLoopBound(context, eventLoop: eventLoop)
            Task {
                let requestContext = BasicRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
                let response = (try? await responder.respond(to: request, context: requestContext)) ?? Response(status: .internalServerError)
                let collected = CollectedBody()
                try? await response.body.write(collected)
                let (responseHead, buffers) = (response.head, collected.buffers)
                let write: @Sendable () -> Void = {
                    let context = loopBound.value
                    context.write(NIOAny(HTTPResponsePart.head(responseHead)), promise: nil)
                    for buffer in buffers { context.write(NIOAny(HTTPResponsePart.body(buffer)), promise: nil) }
                    context.writeAndFlush(NIOAny(HTTPResponsePart.end(nil)), promise: nil)
                }
                if eventLoop.inEventLoop { write() } else { eventLoop.execute(write) }
            }
        }
    }
}

/// A response body's buffers, gathered for one write.
final class CollectedBody: ResponseBodyWriter, @unchecked Sendable {
    var buffers: [ByteBuffer] = []
    func write(_ buffer: ByteBuffer) async throws { self.buffers.append(buffer) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

let port = FloorServer.port()
let responder = FloorRoute.healthzRouter().buildResponder()
let logger = Logger(label: "floor-router")
try await FloorServer.serveHTTP1(port: port) { pipeline in
    try pipeline.addHandler(HTTP1ToHTTPServerCodec(secure: false))
    try pipeline.addHandler(RouterHandler(responder: responder, logger: logger))
}
