import NIOCore
import NIOHTTP1
import NIOPosix

/// What the floor servers share: their port, their body, and a NIO server with the HTTP/1
/// pipeline on NIO's singleton event loops.
public enum FloorServer {
    /// The gateway's `/healthz` body.
    public static let body = #"{"status":"ok"}"#

    /// The port this server was started with (its one argument).
    public static func port() -> Int {
        guard CommandLine.arguments.count == 2, let port = Int(CommandLine.arguments[1]) else {
            fatalError("usage: \(CommandLine.arguments[0]) PORT")
        }
        return port
    }

    /// Serves HTTP/1 on 127.0.0.1:`port` until the process ends; `handlers` adds each
    /// connection's handlers after NIO's HTTP/1 pipeline.
    public static func serveHTTP1(
        port: Int, handlers: @escaping @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void
    ) async throws {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try handlers(channel.pipeline.syncOperations)
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        try await channel.closeFuture.get()
    }
}
