import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Postgres of one test's own, in a temporary folder on a free loopback port, for tests
/// that restart the server (the shared one must keep running for the other tests).
/// As root it runs as the `postgres` user, since Postgres refuses to run as root.
public final class PrivatePostgresServer: Sendable {
    public let directory: String
    public let port: Int
    private let binDirectory: String
    /// Whether the server speaks TLS (`ssl=on`) with a certificate for `localhost` and
    /// 127.0.0.1 that `caFile`'s throwaway authority signed.
    public let tls: Bool

    public var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable" }
    /// The authority that signed the server's certificate (`tls` only).
    public var caFile: String { directory + "/ca.crt" }
    /// An authority that signed nothing of this server's, for refusals.
    public var otherCAFile: String { directory + "/other-ca.crt" }
    private var dataDirectory: String { directory + "/data" }
    private var options: String {
        let tls = self.tls ? " -c ssl=on -c ssl_cert_file=\(directory)/server.crt -c ssl_key_file=\(directory)/server.key" : ""
        return "-p \(port) -h 127.0.0.1 -k \(directory) -c fsync=off -c max_connections=20" + tls
    }

    private init(directory: String, port: Int, binDirectory: String, tls: Bool) {
        self.directory = directory
        self.port = port
        self.binDirectory = binDirectory
        self.tls = tls
    }

    /// Starts a server (with TLS when `tls`), runs `body`, and removes the server however
    /// `body` ends.
    public static func with<T: Sendable>(tls: Bool = false, _ body: (PrivatePostgresServer) async throws -> T) async throws -> T {
        let server = try await start(tls: tls)
        do {
            let result = try await body(server)
            await server.remove()
            return result
        } catch {
            await server.remove()
            throw error
        }
    }

    private static func start(tls: Bool) async throws -> PrivatePostgresServer {
        let environment = ProcessInfo.processInfo.environment
        let binDirectory = environment["POSTGRES_BIN_DIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/lib/postgresql/15/bin"
        let directory = NSTemporaryDirectory() + "pg-private-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        var server = PrivatePostgresServer(directory: directory, port: try freePort(), binDirectory: binDirectory, tls: tls)
        do {
            if tls {
                // ca.crt, server.crt and server.key (0600) for localhost and 127.0.0.1, other-ca.crt.
                try await TestCertificates.make(in: directory, names: ["server"])
            }
            if getuid() == 0 {
                try await runCommand("/bin/chown", ["-R", "postgres:postgres", directory])
            }
            try await server.asPostgres(
                "initdb", ["-D", server.dataDirectory, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale"])
            // The free port is only free when it is picked: under the full test run another
            // process (a client's ephemeral port, another test's server) can take it before
            // Postgres binds it, and the server exits at start. Two more ports are tried; the
            // last failure carries the end of the server's log.
            for attempt in 1...3 {
                do {
                    try await server.pgCtl(["start", "-w", "-t", "60", "-o", server.options])
                    return server
                } catch {
                    let log = (try? String(contentsOfFile: directory + "/postgres.log", encoding: .utf8)) ?? ""
                    guard attempt < 3 else {
                        throw CommandFailed(description: "\(error)\nserver log:\n\(log.suffix(2_000))")
                    }
                    server = PrivatePostgresServer(directory: directory, port: try freePort(), binDirectory: binDirectory, tls: tls)
                }
            }
            return server
        } catch {
            await server.remove()
            throw error
        }
    }

    /// `pg_ctl restart -m fast`: every open connection is terminated.
    public func restart() async throws {
        try await pgCtl(["restart", "-m", "fast", "-w", "-t", "60", "-o", options])
    }

    /// Stops the server (if running) and deletes its folder.
    public func remove() async {
        try? await pgCtl(["stop", "-m", "immediate", "-w", "-t", "30"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func pgCtl(_ arguments: [String]) async throws {
        try await asPostgres("pg_ctl", ["-D", dataDirectory, "-l", directory + "/postgres.log"] + arguments)
    }

    private func asPostgres(_ tool: String, _ arguments: [String]) async throws {
        let path = binDirectory + "/" + tool
        if getuid() == 0 {
            try await runCommand("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
        } else {
            try await runCommand(path, arguments)
        }
    }
}
