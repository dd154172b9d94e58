import FoundationEssentials
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOPosix
import NIOSSL
import Synchronization

/// One authenticated TCP connection to one server address, carrying many calls at once.
final class RPCClientConnection: Sendable {
    let channel: any Channel
    let address: SocketAddress
    private let nextID = Atomic<UInt64>(1)

    private init(channel: any Channel, address: SocketAddress) {
        self.channel = channel
        self.address = address
    }

    /// `TCP_USER_TIMEOUT`, in milliseconds (`Configuration.unacknowledgedTimeout`).
    static let unacknowledgedTimeoutOption = ChannelOptions.socket(SocketOptionLevel(IPPROTO_TCP), SocketOptionName(TCP_USER_TIMEOUT))

    /// Connects to `address` and completes the `hello` handshake; throws `RPCError` when the
    /// server refuses us.
    static func connect(
        to address: SocketAddress,
        configuration: RPCClient.Configuration,
        eventLoop: any EventLoop
    ) async throws -> RPCClientConnection {
        let maximumFrameSize = configuration.maximumFrameSize
        let tls = configuration.tls
        let channel = try await ClientBootstrap(group: eventLoop)
            .connectTimeout(.nanoseconds(Int64(configuration.connectTimeout.milliseconds * 1_000_000)))
            .channelOption(Self.unacknowledgedTimeoutOption, value: SocketOptionValue(configuration.unacknowledgedTimeout.milliseconds))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls {
                        try channel.pipeline.syncOperations.addHandler(
                            NIOSSLClientHandler(context: tls.client, serverHostname: RPCTLS.serverName(of: address)))
                    }
                    try channel.pipeline.syncOperations.addRPCFraming(maximumFrameSize: maximumFrameSize)
                    try channel.pipeline.syncOperations.addHandler(RPCClientHandler())
                }
            }
            .connect(to: address).get()
        let connection = RPCClientConnection(channel: channel, address: address)
        do {
            let hello = Hello.Params(service: configuration.callerName, token: configuration.serviceToken)
            _ = try await connection.send(
                Hello.method, hello, as: Hello.Result.self, deadline: .now + configuration.connectTimeout, requestID: nil)
        } catch {
            channel.close(promise: nil)
            throw error
        }
        return connection
    }

    /// Sends one request and waits for its result; throws the response's `RPCError` or an
    /// `RPCCallFailure`.
    func send<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: String, _ params: Params, as resultType: Result.Type, deadline: ContinuousClock.Instant, requestID: String?
    ) async throws -> Result {
        let paramsJSON: Data
        do {
            paramsJSON = try JSONCoders.encode(params)
        } catch {
            throw RPCError.badRequest("Parameters of \(method) cannot be encoded")
        }
        return try await self.send(method, paramsJSON: paramsJSON, deadline: deadline, requestID: requestID) {
            try JSONCoders.decode(Result.self, from: $0)
        }
    }

    /// Sends one request whose params are JSON bytes; `decode` turns the result's bytes into
    /// the caller's value (on the event loop, as the response arrives).
    func send<Result: Sendable>(
        _ method: String, paramsJSON: Data, deadline: ContinuousClock.Instant, requestID: String?, origin: RPCCallOrigin? = nil,
        decode: @escaping @Sendable (ByteBuffer) throws -> Result
    ) async throws -> Result {
        let remaining = deadline - .now
        guard remaining > .zero else { throw RPCCallFailure.deadlineExceeded }
        let id = self.nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let frame = EnvelopeWriter.request(
            id: id, method: method, params: paramsJSON,
            deadlineMs: UInt64(max(1, remaining.milliseconds.rounded(.up))), requestID: requestID, origin: origin)
        let promise = self.channel.eventLoop.makePromise(of: (any Sendable).self)
        let nanoseconds = Int64(remaining.milliseconds * 1_000_000)
        let call = RPCOutboundCall(
            id: id, frame: frame, decodeResult: { try decode($0) },
            promise: promise, deadline: .now() + .nanoseconds(nanoseconds))
        self.channel.writeAndFlush(call).whenFailure { _ in
            promise.fail(RPCCallFailure.notSent)
        }
        return try await promise.futureResult.get() as! Result
    }

    var isActive: Bool { self.channel.isActive }

    func close() {
        self.channel.close(promise: nil)
    }
}
