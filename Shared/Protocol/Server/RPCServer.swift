import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import Synchronization

/// A TCP server of the internal protocol: authenticates each connection with `hello`, then
/// runs its requests concurrently. One connection's failure never touches the others.
///
/// Create it with `bind`, which listens at once (so `port` is known), then `run()` it, usually
/// in a `ServiceGroup`: on graceful shutdown it stops accepting, lets in-flight requests finish
/// and closes.
public final class RPCServer: Service, Sendable {
    /// Server settings; every field has a default.
    public struct Configuration: Sendable {
        public var host: String = "127.0.0.1"
        /// 0 picks a free port.
        public var port: Int = 0
        /// This service's name, as `hello` replies it.
        public var serviceName: String
        /// This service's version, as `hello` replies it.
        public var serviceVersion: String = "0.1.0"
        /// The shared secret callers present in `hello`.
        public var serviceToken: String
        /// The largest frame accepted (1 MiB).
        public var maximumFrameSize: Int = 1 << 20
        /// Requests running at once on one connection; more wait for a free slot.
        public var maximumConcurrentRequestsPerConnection: Int = 512

        public init(serviceName: String, serviceToken: String, host: String = "127.0.0.1", port: Int = 0) {
            self.serviceName = serviceName
            self.serviceToken = serviceToken
            self.host = host
            self.port = port
        }
    }

    typealias Connection = NIOAsyncChannel<ByteBuffer, ByteBuffer>

    let configuration: Configuration
    let router: RPCRouter
    let logger: Logger
    private let listener: NIOAsyncChannel<Connection, Never>
    /// Open connections, so a graceful shutdown can stop their reading.
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let draining = Atomic<Bool>(false)
    /// Decodes requests with the params types of this server's methods (and `hello`).
    let decoder: JSONDecoder

    /// The port the server listens on.
    public let port: Int

    private init(configuration: Configuration, router: RPCRouter, logger: Logger, listener: NIOAsyncChannel<Connection, Never>) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.listener = listener
        var paramsDecoders = router.paramsDecoders
        paramsDecoders[Hello.method] = { try $0.decodeObject(Hello.Params.self, forKey: .params) }
        self.decoder = ParamsDecoders(byMethod: paramsDecoders).makeJSONDecoder()
        self.port = listener.channel.localAddress?.port ?? configuration.port
    }

    /// Starts listening. The methods `hello` and `health` are answered by the server itself
    /// (`health` only when the router registers it).
    public static func bind(
        configuration: Configuration,
        router: RPCRouter,
        logger: Logger,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) async throws -> RPCServer {
        let maximumFrameSize = configuration.maximumFrameSize
        let listener = try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addRPCFraming(maximumFrameSize: maximumFrameSize)
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        var logger = logger
        logger[metadataKey: "rpc.service"] = "\(configuration.serviceName)"
        return RPCServer(configuration: configuration, router: router, logger: logger, listener: listener)
    }

    public func run() async throws {
        self.logger.info("RPC server listening", metadata: ["rpc.port": "\(self.port)"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await self.listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        group.addTask { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            self.shutdown()
        }
        self.logger.info("RPC server stopped")
    }

    /// Stops accepting and stops reading from open connections; requests in flight finish and
    /// their responses are written before each connection closes.
    public func shutdown() {
        guard !self.draining.exchange(true, ordering: .relaxed) else { return }
        self.listener.channel.close(promise: nil)
        let open = self.connections.withLock { Array($0.values) }
        for channel in open {
            channel.close(mode: .input, promise: nil)
        }
    }

    func track(_ channel: any Channel) {
        self.connections.withLock { $0[ObjectIdentifier(channel)] = channel }
        if self.draining.load(ordering: .relaxed) {
            channel.close(mode: .input, promise: nil)
        }
    }

    func untrack(_ channel: any Channel) {
        _ = self.connections.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
