import Foundation
import Redis

#if canImport(Glibc)
import Glibc
#endif

/// A `redis-server` child process of the test on its own loopback port, for tests that
/// restart or reconfigure the server. `stop()` runs on every path out of `with`.
public final class PrivateRedisServer: @unchecked Sendable {
    public let port: Int
    private let extraArguments: [String]
    private var process: Process?

    public var url: RedisURL { RedisURL(host: "127.0.0.1", port: port) }

    private init(extraArguments: [String]) throws {
        self.port = try freePort()
        self.extraArguments = extraArguments
    }

    /// Starts a server, runs `body`, and stops the server whatever happens.
    public static func with<Result>(
        arguments: [String] = [], _ body: (PrivateRedisServer) async throws -> Result
    ) async throws -> Result {
        let server = try PrivateRedisServer(extraArguments: arguments)
        defer { server.stop() }
        try await server.start()
        return try await body(server)
    }

    /// Starts `redis-server` on `port` and waits until it accepts connections.
    public func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["redis-server", "--port", String(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--daemonize", "no"] + extraArguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        self.process = process
        let deadline = ContinuousClock.now + .seconds(30)
        while !acceptsConnections(port: port) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                throw RedisError.connectionFailed("private redis-server on port \(port) did not start")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Kills the server at once (SIGKILL, like a crash) and reaps it.
    public func stop() {
        guard let process else { return }
        self.process = nil
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
