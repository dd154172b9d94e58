import Foundation
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import NIOPosix

@testable import ServiceProtocol

let testToken = "test-service-token"

/// Parameters and result of the test echo method.
struct Echo: Codable, Sendable, Equatable {
    var value: Int
    var delayMs: Int?
}

/// A router with `test.echo` (optionally delayed) and `test.fail` methods.
func testRouter() -> RPCRouter {
    var router = RPCRouter()
    router.register("test.echo") { (params: Echo, _) in
        if let delay = params.delayMs { try await Task.sleep(for: .milliseconds(delay)) }
        return params
    }
    router.register("test.fail") { (params: [String: String], _) -> Empty in
        switch params["kind"] {
        case "not_found": throw RPCError.notFound("No such thing")
        case "unavailable": throw RPCError.unavailable("Down for a moment")
        default: throw NSError(domain: "secret-internal-detail", code: 42)
        }
    }
    return router
}

/// Runs a server on a free loopback port for the duration of `body`.
func withServer<T: Sendable>(
    router: RPCRouter = testRouter(),
    configure: (inout RPCServer.Configuration) -> Void = { _ in },
    _ body: (RPCServer) async throws -> T
) async throws -> T {
    var configuration = RPCServer.Configuration(serviceName: "test", serviceToken: testToken)
    // Raw connections of these tests may wait long for their turn on a loaded machine; the
    // hello timeout has tests of its own (ConnectionLimitTests).
    configuration.helloTimeout = .seconds(120)
    configure(&configuration)
    let server = try await RPCServer.bind(configuration: configuration, router: router, logger: Logger(label: "test.server"))
    return try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { group.cancelAll() }
        return try await body(server)
    }
}

func clientConfiguration(ports: [Int], token: String = testToken) -> RPCClient.Configuration {
    var configuration = RPCClient.Configuration(
        endpoints: ports.map { RPCEndpoint(host: "127.0.0.1", port: $0) },
        serviceName: "test", callerName: "tests", serviceToken: token)
    configuration.minimumBackoff = .milliseconds(10)
    configuration.maximumBackoff = .milliseconds(100)
    // Generous: the whole test run shares two cores, and right after it starts a call may wait
    // seconds for its first connection. Tests about deadlines set their own, short ones.
    configuration.callTimeout = .seconds(90)
    configuration.connectTimeout = .seconds(30)
    return configuration
}

/// A bare framed connection that sends and reads raw frames, for protocol edge cases.
final class RawConnection {
    let channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
    private var iterator: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator

    init(channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) {
        self.channel = channel
        self.iterator = channel.inbound.makeAsyncIterator()
    }

    deinit {
        self.channel.outbound.finish()
        self.channel.channel.close(promise: nil)
    }

    static func connect(port: Int) async throws -> RawConnection {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(RPCFrameDecoder(maximumFrameSize: 1 << 20)))
                    return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        return RawConnection(channel: channel)
    }

    /// Writes one frame with its length prefix.
    func send(_ payload: String) async throws {
        var buffer = ByteBuffer()
        buffer.writeInteger(UInt32(payload.utf8.count), endianness: .big)
        buffer.writeString(payload)
        try await self.channel.outbound.write(buffer)
    }

    func sendBytes(_ bytes: [UInt8]) async throws {
        try await self.channel.outbound.write(ByteBuffer(bytes: bytes))
    }

    func hello(service: String = "raw", token: String = testToken) async throws -> [String: Any] {
        try await self.send(#"{"v":1,"id":1,"method":"hello","params":{"service":"\#(service)","token":"\#(token)","protocol":1}}"#)
        return try await self.receive()
    }

    /// Reads the next frame as a JSON object.
    func receive() async throws -> [String: Any] {
        guard let frame = try await self.iterator.next() else { throw RawConnectionClosed() }
        return try JSONSerialization.jsonObject(with: Data(buffer: frame)) as! [String: Any]
    }

    /// True when the server closed the connection (no more frames).
    func isClosedByPeer() async -> Bool {
        do { return try await self.iterator.next() == nil } catch { return true }
    }
}

struct RawConnectionClosed: Error {}

func errorCode(_ response: [String: Any]) -> String? {
    (response["error"] as? [String: Any])?["code"] as? String
}
