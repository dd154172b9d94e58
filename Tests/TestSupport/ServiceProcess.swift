import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// One of the project's executables running as a child process, with its output in files.
public final class ServiceProcess: @unchecked Sendable {
    public let name: String
    public let process = Process()
    public let stdoutURL: URL
    public let stderrURL: URL

    /// The folder holding the built executables: the test bundle's own folder.
    public static var buildDirectory: URL {
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent()
    }

    public init(_ name: String, arguments: [String] = [], environment: [String: String]) throws {
        self.name = name
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.stdoutURL = folder.appendingPathComponent("stdout.log")
        self.stderrURL = folder.appendingPathComponent("stderr.log")
        FileManager.default.createFile(atPath: self.stdoutURL.path, contents: nil)
        FileManager.default.createFile(atPath: self.stderrURL.path, contents: nil)
        self.process.executableURL = Self.buildDirectory.appendingPathComponent(name)
        self.process.arguments = arguments
        // Only what the test passes, plus PATH: nothing leaks in from the test's own environment.
        self.process.environment = environment.merging(["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]) { a, _ in a }
        self.process.standardOutput = try FileHandle(forWritingTo: self.stdoutURL)
        self.process.standardError = try FileHandle(forWritingTo: self.stderrURL)
        try self.process.run()
    }

    deinit {
        if self.process.isRunning { kill(self.process.processIdentifier, SIGKILL) }
    }

    public var stderr: String { (try? String(contentsOf: self.stderrURL, encoding: .utf8)) ?? "" }
    public var stdout: String { (try? String(contentsOf: self.stdoutURL, encoding: .utf8)) ?? "" }

    public func terminate() {
        kill(self.process.processIdentifier, SIGTERM)
    }

    /// Waits for the process to exit and returns its status; nil if it is still running after `timeout`.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let deadline = ContinuousClock.now + timeout
        while self.process.isRunning {
            guard ContinuousClock.now < deadline else { return nil }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return self.process.terminationStatus
    }
}

/// A TCP port nothing listens on right now, for a server a test starts. Taken at random
/// below the kernel's ephemeral range (32768 and up): a port from that range, once released,
/// can be taken at any moment as the local port of some outgoing connection, and the server
/// then fails to bind it. Never the same port twice in one test run: tests run in parallel in
/// this process, and a port handed out but not yet bound would pass `canBind` again.
public func freePort() throws -> Int {
    for _ in 0..<200 {
        let port = Int.random(in: 20_000..<32_000)
        guard handedOutPorts.withLock({ $0.insert(port).inserted }) else { continue }
        if canBind(port: port) { return port }
    }
    throw POSIXError(.EADDRINUSE)
}

private let handedOutPorts = Mutex<Set<Int>>([])

private func canBind(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
    }
}

/// A variable the test script exports; a test that needs it fails loudly without it.
public func requiredEnvironment(_ name: String) throws -> String {
    guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
        Issue.record("\(name) is not set: run the tests through scripts/test, which starts Postgres and Redis")
        throw MissingEnvironment(name: name)
    }
    return value
}

/// The error a test throws after recording that a variable it needs is missing.
public struct MissingEnvironment: Error {
    public var name: String
}
