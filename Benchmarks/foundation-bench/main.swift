import BenchmarkSupport
import CoreMetrics
import Foundation
import Logging
import NIOCore
import NIOPosix
import Prometheus
import ServiceKit
import ServiceProtocol

// Run Swift Concurrency on the NIO event loops, as the services do: no thread hops between
// the I/O threads and the cooperative pool.
try EventLoops.install(EnvironmentReader())  // EVENT_LOOP_THREADS loops (default: one per core)

// Foundation benchmarks: RPC echo round trips over loopback and pooled Postgres `SELECT 1`.
// Run with `scripts/bench` (release build, throwaway Postgres). Prints a Markdown table.

struct EchoPayload: Codable, Sendable {
    var value: Int
    var text: String
}

let seconds = Int(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "") ?? 5
// Metrics are recorded into Prometheus, as in the services, unless BENCH_METRICS=off.
if ProcessInfo.processInfo.environment["BENCH_METRICS"] != "off" {
    MetricsSystem.bootstrap(PrometheusMetricsFactory())
}
let logger = Logger(label: "bench")

var router = RPCRouter()
router.register("bench.echo") { (params: EchoPayload, _) in params }
let token = "bench-token"
let server = try await RPCServer.bind(
    configuration: .init(serviceName: "bench", serviceToken: token), router: router, logger: logger)

/// Echo round trips at 1 and 64 concurrent callers over one client pool.
func echoBenchmarks() async throws -> [LatencyStats] {
    var configuration = RPCClient.Configuration(
        endpoints: [RPCEndpoint(host: "127.0.0.1", port: server.port)],
        serviceName: "bench", callerName: "bench", serviceToken: token)
    configuration.connectionsPerAddress = 2
    return try await RPCClient.withClient(configuration: configuration, logger: logger) { client in
        let payload = EchoPayload(value: 42, text: "hello")
        var rows: [LatencyStats] = []
        for concurrency in [1, 64] {
            rows.append(try await CPUMeter().measure("rpc echo", concurrency: concurrency, duration: .seconds(seconds)) {
                _ = try await client.call("bench.echo", payload, as: EchoPayload.self)
            })
        }
        return rows
    }
}

let rows = try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await server.run() }
    defer { group.cancelAll() }
    var rows = try await echoBenchmarks()
    if let postgresRow = try await postgresBenchmark(seconds: seconds, logger: logger) {
        rows.append(postgresRow)
    }
    return rows
}

print(LatencyStats.header)
for row in rows { print(row.row) }
