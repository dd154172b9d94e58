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
    /// The folder of `TestCertificates` when the server speaks TLS only (`redis.crt`, `ca.crt`).
    public let certificates: String?

    /// `rediss://` when the server speaks TLS.
    public var url: RedisURL { RedisURL(host: "127.0.0.1", port: port, tls: certificates != nil) }

    private init(extraArguments: [String], certificates: String?) throws {
        self.port = try freePort()
        self.extraArguments = extraArguments
        self.certificates = certificates
    }

    /// Starts a server, runs `body`, and stops the server whatever happens. With
    /// `certificates` (a folder `TestCertificates.make` filled with a `redis` name) the server
    /// speaks TLS only, on `port`, with the certificate for `localhost` and 127.0.0.1 and
    /// client certificates optional (`--tls-auth-clients optional`; `arguments` may say `yes`).
    public static func with<Result>(
        arguments: [String] = [], certificates: String? = nil, _ body: (PrivateRedisServer) async throws -> Result
    ) async throws -> Result {
        let server = try PrivateRedisServer(extraArguments: arguments, certificates: certificates)
        defer { server.stop() }
        try await server.start()
        return try await body(server)
    }

    /// Starts `redis-server` on `port` and waits until it accepts connections.
    public func start() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let listening = certificates.map { folder in
            ["--port", "0", "--tls-port", String(port), "--tls-cert-file", folder + "/redis.crt",
             "--tls-key-file", folder + "/redis.key", "--tls-ca-cert-file", folder + "/ca.crt", "--tls-auth-clients", "optional"]
        } ?? ["--port", String(port)]
        process.arguments = ["redis-server"] + listening + ["--bind", "127.0.0.1", "--save", "",
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
