import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Postgres of one test's own, in a temporary folder on a free loopback port, for tests
/// that restart the server (the shared one must keep running for the other tests).
/// As root it runs as the `postgres` user, since Postgres refuses to run as root.
final class PrivatePostgresServer: Sendable {
    /// A command of the server's life failed; carries its output.
    struct CommandFailed: Error, CustomStringConvertible {
        let description: String
    }

    let directory: String
    let port: Int
    private let binDirectory: String
    /// Whether the server speaks TLS (`ssl=on`) with a certificate for `localhost` and
    /// 127.0.0.1 that `caFile`'s throwaway authority signed.
    let tls: Bool

    var url: String { "postgres://postgres@127.0.0.1:\(port)/postgres?sslmode=disable" }
    /// The authority that signed the server's certificate (`tls` only).
    var caFile: String { directory + "/ca.crt" }
    /// An authority that signed nothing of this server's, for refusals.
    var otherCAFile: String { directory + "/other-ca.crt" }
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
    static func with<T: Sendable>(tls: Bool = false, _ body: (PrivatePostgresServer) async throws -> T) async throws -> T {
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
        var server = PrivatePostgresServer(directory: directory, port: try freeLoopbackPort(), binDirectory: binDirectory, tls: tls)
        do {
            if tls { try await Self.makeCertificates(in: directory) }
            if getuid() == 0 {
                try await run("/bin/chown", ["-R", "postgres:postgres", directory])
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
                    server = PrivatePostgresServer(directory: directory, port: try freeLoopbackPort(), binDirectory: binDirectory, tls: tls)
                }
            }
            return server
        } catch {
            await server.remove()
            throw error
        }
    }

    /// A throwaway authority (`ca.crt`), the server's key and certificate it signed for
    /// `localhost` and 127.0.0.1 (`server.key`, 0600, `server.crt`), and a second authority that
    /// signed nothing (`other-ca.crt`), with the system's `openssl`.
    private static func makeCertificates(in directory: String) async throws {
        let openssl = "/usr/bin/openssl"
        for name in ["ca", "other-ca"] {
            try await run(openssl, [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=latchkey-test-\(name)",
                "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).crt",
            ])
        }
        try await run(openssl, [
            "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
            "-keyout", "\(directory)/server.key", "-out", "\(directory)/server.csr",
        ])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(directory)/server.ext", atomically: true, encoding: .utf8)
        try await run(openssl, [
            "x509", "-req", "-in", "\(directory)/server.csr", "-CA", "\(directory)/ca.crt", "-CAkey", "\(directory)/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", "\(directory)/server.ext", "-out", "\(directory)/server.crt",
        ])
        // Postgres refuses a key others may read.
        try await run("/bin/chmod", ["600", "\(directory)/server.key"])
    }

    /// `pg_ctl restart -m fast`: every open connection is terminated.
    func restart() async throws {
        try await pgCtl(["restart", "-m", "fast", "-w", "-t", "60", "-o", options])
    }

    /// Stops the server (if running) and deletes its folder.
    func remove() async {
        try? await pgCtl(["stop", "-m", "immediate", "-w", "-t", "30"])
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func pgCtl(_ arguments: [String]) async throws {
        try await asPostgres("pg_ctl", ["-D", dataDirectory, "-l", directory + "/postgres.log"] + arguments)
    }

    private func asPostgres(_ tool: String, _ arguments: [String]) async throws {
        let path = binDirectory + "/" + tool
        if getuid() == 0 {
            try await Self.run("/usr/sbin/runuser", ["-u", "postgres", "--", path] + arguments)
        } else {
            try await Self.run(path, arguments)
        }
    }

    /// Runs a command to completion on a Dispatch thread (it blocks), throwing on failure.
    /// Uses `posix_spawn` + `waitpid` (Foundation's `Process` may never notice the exit off
    /// the main thread) and sends output to a file, not a pipe: a server started by the
    /// command inherits it and would hold a pipe open forever.
    private static func run(_ executable: String, _ arguments: [String]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
            DispatchQueue.global().async {
                let outputPath = NSTemporaryDirectory() + "pg-private-command-" + UUID().uuidString
                defer { unlink(outputPath) }
                let status = spawnAndWait(executable, arguments, outputPath: outputPath)
                if status == 0 {
                    continuation.resume()
                } else {
                    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
                    continuation.resume(throwing: CommandFailed(
                        description: "\(executable) \(arguments.joined(separator: " ")) exited \(status): \(text)"))
                }
            }
        }
    }

    /// The exit status of the command, or -1 if it could not be started.
    private static func spawnAndWait(_ executable: String, _ arguments: [String], outputPath: String) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return -1 }
        }
        // WIFEXITED / WEXITSTATUS
        return status & 0x7f == 0 ? (status >> 8) & 0xff : -1
    }

    /// A TCP port on 127.0.0.1 nobody listens on right now.
    private static func freeLoopbackPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw CommandFailed(description: "socket() failed") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(descriptor, socketAddress, length) == 0 && getsockname(descriptor, socketAddress, &length) == 0
            }
        }
        guard bound else { throw CommandFailed(description: "bind() failed") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
