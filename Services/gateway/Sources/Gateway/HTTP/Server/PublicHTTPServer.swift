import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The gateway's public HTTP/1 server: Hummingbird's `Server` (binding, the accept loop,
/// graceful shutdown: on SIGTERM it stops accepting, lets each connection finish the request it
/// has, then closes it) with connections of our own (`HTTPRequestTaskHandler`: a task a
/// request on the connection's loop, instead of Hummingbird's `NIOAsyncChannel` per connection).
struct PublicHTTPServer<Responder: HTTPResponder>: ServerChildChannel
where Responder.Context: InitializableFromSource<ApplicationRequestContextSource> {
    struct Connection: ServerChildChannelValue {
        let channel: any Channel
    }

    let responder: Responder
    /// `MAX_BODY_BYTES`: how much of a request body is kept (see `HTTPRequestTaskHandler`).
    let maxBodyBytes: Int
    let headers: ResponseHeaders
    let logger: Logger

    init(responder: Responder, maxBodyBytes: Int, serverName: String?, logger: Logger) {
        self.responder = responder
        self.maxBodyBytes = maxBodyBytes
        self.headers = ResponseHeaders(serverName: serverName)
        self.logger = logger
    }

    /// The server as a service, listening on `address`; `onListening` is given the port it listens on.
    func service(
        address: BindAddress, eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onListening: (@Sendable (Int) async -> Void)? = nil
    ) -> any Service {
        var onServerRunning: (@Sendable (any Channel) async -> Void)?
        if let onListening {
            onServerRunning = { channel in await onListening(channel.localAddress?.port ?? 0) }
        }
        return self.server(
            configuration: ServerConfiguration(address: address), onServerRunning: onServerRunning, eventLoopGroup: eventLoopGroup,
            logger: self.logger)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        channel.eventLoop.makeCompletedFuture {
            let pipeline = channel.pipeline.syncOperations
            // NIO's request decoder; pipelined requests, bytes NIO cannot parse (a 400 after the
            // requests before them), the responses' bytes and graceful shutdown's quiescing are
            // `HTTPRequestTaskHandler`'s.
            try pipeline.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try pipeline.addHandler(
                HTTPRequestTaskHandler(responder: self.responder, maxBodyBytes: self.maxBodyBytes, headers: self.headers, logger: logger))
            return Connection(channel: channel)
        }
    }

    /// Waits for the connection to close (its handlers do the work); a cancelled server closes it.
    func handle(value connection: Connection, logger: Logger) async {
        let channel = connection.channel
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
    }
}
