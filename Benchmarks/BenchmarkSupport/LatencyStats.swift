import Foundation

/// Throughput and latency percentiles of one benchmark run.
public struct LatencyStats: Sendable {
    public var name: String
    public var concurrency: Int
    public var count: Int
    public var seconds: Double
    public var p50: Double
    public var p99: Double
    /// CPU seconds this process and Postgres used during the run (warm-up included).
    public var cpu: (own: Double, postgres: Double)?

    public init(name: String, concurrency: Int, samples: [Duration], elapsed: Duration) {
        let sorted = samples.map { Double($0.components.attoseconds) / 1e15 + Double($0.components.seconds) * 1000 }.sorted()
        self.name = name
        self.concurrency = concurrency
        self.count = sorted.count
        self.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        self.p50 = sorted.isEmpty ? 0 : sorted[sorted.count / 2]
        self.p99 = sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
    }

    public var perSecond: Double { Double(self.count) / self.seconds }

    public static let header = """
        | benchmark | concurrency | ops | ops/s | p50 ms | p99 ms | CPU µs/op (bench + Postgres) | ops/s per 2 cores of CPU |
        |---|---:|---:|---:|---:|---:|---:|---:|
        """

    public var row: String {
        var cpuColumns = "| – | – |"
        if let cpu {
            // The warm-up's operations are not counted, so scale the CPU to the measured part.
            let share = self.seconds / (self.seconds + 0.5)
            let perOp = (cpu.own + cpu.postgres) * share / Double(max(self.count, 1))
            cpuColumns = "| \(Int(cpu.own * share / Double(max(self.count, 1)) * 1e6)) + \(Int(cpu.postgres * share / Double(max(self.count, 1)) * 1e6)) | \(Int(2 / perOp)) |"
        }
        return "| \(self.name) | \(self.concurrency) | \(self.count) | \(Int(self.perSecond)) | \(String(format: "%.3f", self.p50)) | \(String(format: "%.3f", self.p99)) " + cpuColumns
    }
}

/// Runs `operation` from `concurrency` tasks for `duration` (after a short warm-up) and
/// collects every call's latency.
public func measure(
    _ name: String, concurrency: Int, duration: Duration, warmup: Duration = .milliseconds(500),
    _ operation: @escaping @Sendable () async throws -> Void
) async throws -> LatencyStats {
    let warmupEnd = ContinuousClock.now + warmup
    let end = warmupEnd + duration
    let samples = try await withThrowingTaskGroup(of: [Duration].self) { group in
        for _ in 0..<concurrency {
            group.addTask {
                var local: [Duration] = []
                local.reserveCapacity(100_000)
                while true {
                    let start = ContinuousClock.now
                    if start >= end { break }
                    try await operation()
                    if start >= warmupEnd { local.append(ContinuousClock.now - start) }
                }
                return local
            }
        }
        var all: [Duration] = []
        for try await local in group { all.append(contentsOf: local) }
        return all
    }
    return LatencyStats(name: name, concurrency: concurrency, samples: samples, elapsed: duration)
}
