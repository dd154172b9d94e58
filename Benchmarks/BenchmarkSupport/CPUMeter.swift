import Foundation
import Postgres

/// CPU time used by this process and by the Postgres server it talks to (the postmaster and
/// all its children), read from /proc. On a machine shared with other work, CPU time per
/// operation says what throughput a quiet machine would give, where ops/s alone cannot.
public struct CPUMeter: Sendable {
    public let postmasterPID: Int32

    /// Finds the postmaster as the parent of one of our backends.
    public init(postgres: PostgresClient) async throws {
        let backend = try await postgres.query("SELECT pg_backend_pid() AS pid")[0].decode("pid", as: Int.self)
        self.postmasterPID = Self.stat(pid: Int32(backend))?.parent ?? 0
    }

    /// This process alone, for benchmarks that use no database (Postgres reads as 0).
    public init() {
        self.postmasterPID = -1
    }

    /// Seconds of CPU so far: (this process, Postgres).
    public func sample() -> (own: Double, postgres: Double) {
        let own = Self.stat(pid: getpid())?.seconds ?? 0
        guard self.postmasterPID > 0 else { return (own, 0) }
        var postgres = Self.stat(pid: postmasterPID)?.seconds ?? 0
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let pid = Int32(entry), let stat = Self.stat(pid: pid), stat.parent == postmasterPID else { continue }
            postgres += stat.seconds
        }
        return (own, postgres)
    }

    /// The parent pid and the user + system CPU seconds of `pid`.
    static func stat(pid: Int32) -> (parent: Int32, seconds: Double)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after "(comm)": state ppid ... utime(14) stime(15), counted from 1 with pid.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let parent = Int32(fields[1]), let user = Double(fields[11]), let system = Double(fields[12])
        else { return nil }
        return (parent, (user + system) / Double(sysconf(Int32(_SC_CLK_TCK))))
    }
}

extension CPUMeter {
    /// `measure`, with the CPU time this process and Postgres used meanwhile (warm-up included).
    public func measure(
        _ name: String, concurrency: Int, duration: Duration, _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> LatencyStats {
        let before = self.sample()
        var stats = try await BenchmarkSupport.measure(name, concurrency: concurrency, duration: duration, operation)
        let after = self.sample()
        stats.cpu = (after.own - before.own, after.postgres - before.postgres)
        return stats
    }
}
