import BenchmarkSupport
import IdentityAPI
import Foundation
import Synchronization
import IdentityService
import Logging
import MockIdentityProvider
import NIOCore
import NIOPosix
import Postgres
import ServiceKit
import ServiceProtocol

// Identity benchmark: `identity.signIn` of an existing user with a warm JWKS cache, over the
// RPC protocol on loopback, against real Postgres and the mock provider (in-process, real HTTP).
// Run: DATABASE_URL=... swift run -c release identity-bench   (BENCH_SECONDS, default 5)
try EventLoops.install(EnvironmentReader())  // EVENT_LOOP_THREADS loops (default: half the cores)

let environment = ProcessInfo.processInfo.environment
guard let databaseURL = environment["DATABASE_URL"] else {
    FileHandle.standardError.write(Data("identity-bench: DATABASE_URL is required\n".utf8))
    exit(2)
}
let seconds = Int(environment["BENCH_SECONDS"] ?? "") ?? 5
let logger: Logger = {
    var logger = Logger(label: "identity-bench")
    logger.logLevel = .warning
    return logger
}()
let audience = "com.example.bench"
let token = "bench-token"

/// Runs every case against one service and one mock.
func runBenchmarks() async throws -> [LatencyStats] {
try await MockIdentityProviderServer.withRunningMock(logger: logger) { mock, endpoints in
    var values = endpoints.environment
    values["DATABASE_URL"] = databaseURL
    values["DATABASE_POOL_SIZE"] = environment["DATABASE_POOL_SIZE"] ?? "8"
    values["APPLE_AUDIENCES"] = audience
    values["GOOGLE_AUDIENCES"] = audience
    let env = EnvironmentReader(values)
    let postgres = try await BackendBootstrap.postgres(env, schema: "identity", migrations: IdentityApp.migrations, logger: logger)
    let backend = try await IdentityBackend(
        configuration: try IdentityConfiguration(env, environment: .development), postgres: postgres, logger: logger)
    var router = RPCRouter()
    backend.register(on: &router)
    let server = try await RPCServer.bind(
        configuration: .init(serviceName: "identity", serviceToken: token), router: router, logger: logger)
    var clientConfiguration = RPCClient.Configuration(
        endpoints: [RPCEndpoint(host: "127.0.0.1", port: server.port)], serviceName: "identity",
        callerName: "bench", serviceToken: token)
    clientConfiguration.connectionsPerAddress = 2

    let rows = try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask { try await server.run() }
        defer { group.cancelAll() }
        return try await RPCClient.withClient(configuration: clientConfiguration, logger: logger) { client in
            // 64 existing users per provider, each with a fresh token; calls go round robin.
            var rows: [LatencyStats] = []
            for provider in [MockProvider.apple, .google] {
                var credentials: [ProviderCredential] = []
                for _ in 0..<64 {
                    let subject = "bench-\(UUID().uuidString.lowercased())"
                    let token = try await mock.mintIdentityToken(
                        provider,
                        MintRequest(subject: subject, audience: audience, email: "\(subject)@example.com", lifetimeSeconds: 3600))
                    let credential = ProviderCredential(provider: provider == .apple ? .apple : .google, identityToken: token)
                    _ = try await client.call(Identity.signIn, credential)
                    credentials.append(credential)
                }
                let pool = credentials
                for concurrency in [1, 16, 64] {
                    let counter = Counter()
                    rows.append(
                        try await measure("identity.signIn \(provider.rawValue), existing users", concurrency: concurrency, duration: .seconds(seconds)) {
                            let credential = pool[counter.next() % pool.count]
                            let result = try await client.call(Identity.signIn, credential)
                            precondition(!result.isNewUser)
                        })
                }
            }
            return rows
        }
    }
    let fetches = await backend.jwksFetchCounts()
    logger.warning("JWKS fetches during the run", metadata: ["apple": "\(fetches[.apple] ?? 0)", "google": "\(fetches[.google] ?? 0)"])
    await backend.shutdown()
    await postgres.shutdown()
    return rows
}
}

let rows = try await runBenchmarks()
print(LatencyStats.header)
for row in rows { print(row.row) }

/// A shared round-robin index.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    func next() -> Int { self.value.add(1, ordering: .relaxed).oldValue }
}
