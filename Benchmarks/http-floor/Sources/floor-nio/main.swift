import FloorServer
import NIOCore
import NIOHTTP1

/// Answers each request from `channelRead`, on the connection's event loop.
final class HealthzHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let body = ByteBuffer(string: FloorServer.body)

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .end = self.unwrapInboundIn(data) else { return }
        let headers: HTTPHeaders = ["Content-Type": "application/json", "Content-Length": "\(self.body.readableBytes)"]
        context.write(self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))), promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(self.body))), promise: nil)
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }
}

try await FloorServer.serveHTTP1(port: FloorServer.port()) { pipeline in
    try pipeline.addHandler(HealthzHandler())
}
