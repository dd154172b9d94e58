import BenchmarkSupport
import TokensAPI
import Foundation
import Logging
import NIOCore
import NIOPosix
import Postgres
import ServiceKit
import ServiceLifecycle
import ServiceProtocol
import TokenService

// Run Swift Concurrency on the NIO event loops, as the services do.
try EventLoops.install(EnvironmentReader())  // EVENT_LOOP_THREADS loops (default: half the cores)

// Token service benchmarks: `tokens.issue` and `tokens.refresh` (a chain of rotations per
// caller) over the real RPC server, Postgres and Redis, with RS256 and EdDSA keys.
// Run: swift build -c release --product tokens-bench && DATABASE_URL=... REDIS_URL=... .build/release/tokens-bench

let seconds = Int(ProcessInfo.processInfo.environment["BENCH_SECONDS"] ?? "") ?? 5
let concurrency = Int(ProcessInfo.processInfo.environment["BENCH_CONCURRENCY"] ?? "") ?? 32
let logger: Logger = {
    var logger = Logger(label: "tokens-bench")
    logger.logLevel = .warning
    return logger
}()
let serviceToken = "tokens-bench-service-token"
/// CPU time of this process and of Postgres per operation (Redis not included).
let meter = try await {
    let postgres = PostgresClient(
        configuration: PostgresConfiguration(url: ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "", poolSize: 1), logger: logger)
    let meter = try await CPUMeter(postgres: postgres)
    await postgres.shutdown()
    return meter
}()

/// Issues and refreshes against one in-process `tokens` instance signing with `algorithm`.
func benchmark(_ algorithm: String) async throws -> [LatencyStats] {
    let keys = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-keys-\(UUID().uuidString)")
    var environment = ProcessInfo.processInfo.environment
    environment["ENVIRONMENT"] = "development"
    environment["RPC_HOST"] = "127.0.0.1"
    environment["RPC_PORT"] = "0"
    environment["OPS_PORT"] = "0"
    environment["SERVICE_TOKEN"] = serviceToken
    environment["SIGNING_ALG"] = algorithm
    environment["SIGNING_KEYS_DIR"] = keys.path
    environment["DATABASE_POOL_SIZE"] = environment["DATABASE_POOL_SIZE"] ?? "16"
    environment["REDIS_POOL_SIZE"] = environment["REDIS_POOL_SIZE"] ?? "4"
    let instance = try await TokensApp.make(EnvironmentReader(environment), logger: logger)
    var configuration = RPCClient.Configuration(
        endpoints: [RPCEndpoint(host: "127.0.0.1", port: instance.server.port)], serviceName: "tokens",
        callerName: "bench", serviceToken: serviceToken)
    configuration.connectionsPerAddress = 2
    let client = RPCClient(configuration: configuration, logger: logger)
    let group = ServiceGroup(configuration: .init(services: (instance.services + [client]).map { .init(service: $0) }, logger: logger))
    return try await withThrowingTaskGroup(of: Void.self) { tasks in
        tasks.addTask { try await group.run() }
        defer { tasks.cancelAll() }
        var rows: [LatencyStats] = []
        rows.append(try await meter.measure("issue \(algorithm)", concurrency: concurrency, duration: .seconds(seconds)) {
            _ = try await client.call(Tokens.issue, IssueParams(userID: UUID(), deviceName: "bench"))
        })
        // Each caller rotates its own session's chain: every call presents the token the last one returned.
        let chains = RefreshChains()
        rows.append(try await meter.measure("refresh \(algorithm)", concurrency: concurrency, duration: .seconds(seconds)) {
            let current = try await chains.take(client)
            let next = try await client.call(Tokens.refresh, RefreshParams(refreshToken: current))
            await chains.give(next.refreshToken)
        })
        // Let the services drain before the task group is left (leaving it cancels them, and the
        // ops server reports the cancellation as an error).
        await group.triggerGracefulShutdown()
        try await tasks.next()
        try? FileManager.default.removeItem(at: keys)
        return rows
    }
}

/// A pool of current refresh tokens, one per chain; a caller takes one, rotates it, gives the successor back.
actor RefreshChains {
    private var idle: [String] = []

    func take(_ client: RPCClient) async throws -> String {
        if let token = self.idle.popLast() { return token }
        return try await client.call(Tokens.issue, IssueParams(userID: UUID(), deviceName: "bench")).refreshToken
    }

    func give(_ token: String) {
        self.idle.append(token)
    }
}

var rows: [LatencyStats] = []
for algorithm in ["RS256", "EdDSA"] {
    rows += try await benchmark(algorithm)
}
print(LatencyStats.header)
for row in rows { print(row.row) }
