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
try EventLoops.install(EnvironmentReader())  // EVENT_LOOP_THREADS loops (default: half the cores)

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

/// JSON alone, one thread: the echo payload and a state query's params (50 ids) encoded and
/// decoded by Foundation's coders and by the RPC layer's (`RPCJSON`).
func codecBenchmarks() async throws -> [LatencyStats] {
    struct StateQuery: Codable {
        var userID: UUID
        var itemIDs: [String]
        enum CodingKeys: String, CodingKey { case userID = "user_id", itemIDs = "item_ids" }
    }
    let echo = EchoPayload(value: 42, text: "hello")
    let query = StateQuery(userID: UUID(), itemIDs: (0..<50).map { "article-\($0 * 7)" })
    let encoder = JSONEncoder()
    let decoder = JSONDecoder()
    let duration = Duration.seconds(max(1, seconds / 2))
    return [
        try await CPUMeter().measure("JSON echo payload, Foundation encode + decode", concurrency: 1, duration: duration) {
            _ = try decoder.decode(EchoPayload.self, from: try encoder.encode(echo))
        },
        try await CPUMeter().measure("JSON echo payload, RPCJSON encode + decode", concurrency: 1, duration: duration) {
            _ = try RPCJSON.decode(EchoPayload.self, from: ByteBuffer(data: try RPCJSON.encode(echo)))
        },
        try await CPUMeter().measure("JSON 50-id params, Foundation encode + decode", concurrency: 1, duration: duration) {
            _ = try decoder.decode(StateQuery.self, from: try encoder.encode(query))
        },
        try await CPUMeter().measure("JSON 50-id params, RPCJSON encode + decode", concurrency: 1, duration: duration) {
            _ = try RPCJSON.decode(StateQuery.self, from: ByteBuffer(data: try RPCJSON.encode(query)))
        },
    ]
}

let rows = try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await server.run() }
    defer { group.cancelAll() }
    var rows = try await codecBenchmarks() + (try await echoBenchmarks())
    if let postgresRow = try await postgresBenchmark(seconds: seconds, logger: logger) {
        rows.append(postgresRow)
    }
    return rows
}

print(LatencyStats.header)
for row in rows { print(row.row) }
