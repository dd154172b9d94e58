import FoundationEssentials
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import ServiceLifecycle
import Synchronization

/// A TCP server of the internal protocol: authenticates each connection with `hello`, then
/// runs its requests concurrently. One connection's failure never touches the others.
///
/// Create it with `bind`, which listens at once (so `port` is known), then `run()` it, usually
/// in a `ServiceGroup`: on graceful shutdown it stops accepting, lets in-flight requests finish
/// and closes.
///
/// A lock, not an actor: its channel handlers register and drop connections from NIO's synchronous callbacks.
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
        /// The shared secret callers present in `hello` when there is no caller list.
        public var serviceToken: String
        /// The callers admitted and what each may call (`RPC_CALLERS`); nil: the service token
        /// admits every caller to every method.
        public var callers: RPCCallers?
        /// Mutual TLS (`RPC_TLS_*`); nil: plain TCP.
        public var tls: RPCTLS?
        /// The largest frame accepted (1 MiB).
        public var maximumFrameSize: Int = 1 << 20
        /// Requests running at once on one connection; more wait for a free slot.
        public var maximumConcurrentRequestsPerConnection: Int = 512
        /// A connection that has not sent a good `hello` by then is told `unauthenticated` and
        /// closed, so connections that never speak cannot pile up (`RPC_HELLO_TIMEOUT`).
        public var helloTimeout: Duration = .seconds(5)
        /// Open connections at most; one more is told `service_unavailable` and closed
        /// (`RPC_MAX_CONNECTIONS`).
        public var maximumConnections: Int = 1024

        public init(serviceName: String, serviceToken: String, host: String = "127.0.0.1", port: Int = 0) {
            self.serviceName = serviceName
            self.serviceToken = serviceToken
            self.host = host
            self.port = port
        }
    }

    let core: RPCServerCore
    private let listener: NIOAsyncChannel<any Channel, Never>
    /// Open connections, so a graceful shutdown can stop their reading.
    private let connections = Mutex<[ObjectIdentifier: any Channel]>([:])
    private let draining = Atomic<Bool>(false)

    /// The port the server listens on.
    public let port: Int

    private init(core: RPCServerCore, listener: NIOAsyncChannel<any Channel, Never>) {
        self.core = core
        self.listener = listener
        self.port = listener.channel.localAddress?.port ?? core.configuration.port
    }

    var logger: Logger { self.core.logger }

    /// Starts listening. The methods `hello` and `health` are answered by the server itself
    /// (`health` only when the router registers it).
    public static func bind(
        configuration: Configuration,
        router: RPCRouter,
        logger: Logger,
        eventLoopGroup: MultiThreadedEventLoopGroup = .singleton
    ) async throws -> RPCServer {
        var logger = logger
        logger[metadataKey: "rpc.service"] = "\(configuration.serviceName)"
        let core = RPCServerCore(configuration: configuration, router: router, logger: logger)
        let listener = try await ServerBootstrap(group: eventLoopGroup)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls = configuration.tls {
                        try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls.server))
                    }
                    try channel.pipeline.syncOperations.addRPCFraming(maximumFrameSize: configuration.maximumFrameSize)
                    try channel.pipeline.syncOperations.addHandler(RPCServerConnectionHandler(core: core))
                    return channel
                }
            }
        return RPCServer(core: core, listener: listener)
    }

    public func run() async throws {
        self.logger.info("RPC server listening", metadata: ["rpc.port": "\(self.port)"])
        defer { self.logger.info("RPC server stopped") }
        do {
            try await self.serve()
        } catch {
            await self.closeListener()
            throw error
        }
        await self.closeListener()
    }

    /// Accepts connections until the listener closes; each connection lives in a child task
    /// until it closes (at once when cancelled).
    private func serve() async throws {
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await self.listener.executeThenClose { inbound in
                    for try await connection in inbound {
                        guard self.admit(connection) else { continue }
                        // Counted here, before the next accept: tracked in the child task, a
                        // connection could go uncounted while the next one was admitted.
                        self.track(connection)
                        group.addTask {
                            await withTaskCancellationHandler {
                                try? await connection.closeFuture.get()
                            } onCancel: {
                                connection.close(promise: nil)
                            }
                            self.untrack(connection)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            self.shutdown()
        }
    }

    /// Closes the listening socket and waits until it is closed, so that the port is free
    /// again when `run()` returns.
    private func closeListener() async {
        self.listener.channel.close(promise: nil)
        try? await self.listener.channel.closeFuture.get()
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

    /// False, after telling the caller and closing, when the server already holds
    /// `maximumConnections` connections.
    private func admit(_ channel: any Channel) -> Bool {
        let open = self.connections.withLock { $0.count }
        guard open >= self.core.configuration.maximumConnections else { return true }
        self.core.refusals.tooManyConnections.increment()
        self.logger.warning("Refused a connection: too many open", metadata: ["rpc.connections": "\(open)"])
        let reply = RPCRouter.encodeError(RPCError(.serviceUnavailable, "Too many connections, try another replica or later"), id: 0)
        channel.writeAndFlush(reply).whenComplete { _ in channel.close(promise: nil) }
        return false
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
