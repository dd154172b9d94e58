import BenchmarkSupport
import ContentStateAPI
import ContentStateService
import Foundation
import Logging
import NIOCore
import NIOPosix
import Postgres
import ServiceKit
import ServiceProtocol

// Content-state through its RPC client, as the gateway calls it: state queries of 50 ids and
// lists of 50 favorites, plus the write paths. Needs DATABASE_URL (a throwaway database: it
// writes bench users into schema `content`). Prints a Markdown table.
//   swift build -c release --product content-state-bench
//   DATABASE_URL=... BENCH_SECONDS=5 .build/release/content-state-bench
// BENCH_ONLY=TEXT runs only the benchmarks whose name holds TEXT; BENCH_CONCURRENCY (64) callers;
// DATABASE_POOL_SIZE (8); BENCH_RPC_CONNECTIONS (2) connections from the client to the server;
// EVENT_LOOP_THREADS (half the cores) event loops for client and server together.

// Swift Concurrency on the NIO event loops (EVENT_LOOP_THREADS of them), as every service's main does.
try EventLoops.install(EnvironmentReader())

let environment = ProcessInfo.processInfo.environment
guard let databaseURL = environment["DATABASE_URL"] else {
    print("DATABASE_URL is not set")
    exit(1)
}
let seconds = Int(environment["BENCH_SECONDS"] ?? "") ?? 5
let concurrency = Int(environment["BENCH_CONCURRENCY"] ?? "") ?? 64
let poolSize = Int(environment["DATABASE_POOL_SIZE"] ?? "") ?? 8
/// Runs only the benchmarks whose name contains this text (all when unset); seeding always runs.
let only = environment["BENCH_ONLY"]
let logger = {
    var logger = Logger(label: "content-state-bench")
    logger.logLevel = .warning
    return logger
}()

let users = BenchData.users
let catalog = BenchData.catalog

let postgres = PostgresClient(configuration: PostgresConfiguration(url: databaseURL, poolSize: poolSize), logger: logger)
try await Migrator.migrate(postgres, schema: ContentStateApp.schema, migrations: ContentStateApp.migrations, logger: logger)
let router = {
    var router = RPCRouter()
    ContentStateMethods.register(on: &router, postgres: postgres, configuration: ContentStateConfiguration())
    return router
}()
let meter = try await CPUMeter(postgres: postgres)
let token = "bench-token"
let server = try await RPCServer.bind(
    configuration: .init(serviceName: "content-state", serviceToken: token), router: router, logger: logger)
let clientConfiguration = benchClientConfiguration()

func benchClientConfiguration() -> RPCClient.Configuration {
    var configuration = RPCClient.Configuration(
        endpoints: [RPCEndpoint(host: "127.0.0.1", port: server.port)],
        serviceName: "content-state", callerName: "bench", serviceToken: token)
    configuration.callTimeout = .seconds(30)
    configuration.connectionsPerAddress = Int(environment["BENCH_RPC_CONNECTIONS"] ?? "") ?? 2
    return configuration
}

/// Each user: 300 favorites (with positions), 400 items read, 50 unliked, out of 1,000 items.
func seed(_ client: RPCClient) async throws -> LatencyStats {
    let start = ContinuousClock.now
    var samples: [Duration] = []
    try await withThrowingTaskGroup(of: [Duration].self) { group in
        for (index, user) in users.enumerated() {
            group.addTask {
                var local: [Duration] = []
                let shuffled = catalog.shuffled()
                for (rank, item) in shuffled.prefix(300).enumerated() {
                    let began = ContinuousClock.now
                    let _: Favorite = try await client.call(
                        ContentState.favoritesPut,
                        FavoritePutParams(userID: user, itemID: item, nickname: .set(rank % 5 == 0 ? "nick \(rank)" : nil), position: .set(Int64(rank))))
                    local.append(ContinuousClock.now - began)
                }
                let _: ReadBatchResult = try await client.call(
                    ContentState.readBatch, ReadBatchParams(userID: user, itemIDs: Array(shuffled.suffix(400)), read: true))
                for item in shuffled.dropFirst(index % 7).prefix(50) {
                    let _: Unlike = try await client.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: item))
                }
                return local
            }
        }
        for try await local in group { samples += local }
    }
    let elapsed = ContinuousClock.now - start
    // A live database has statistics for its users; autovacuum would take a minute to gather
    // them for users created seconds ago, and without them the planner expects one row per user
    // (a hash join over all the user's rows instead of 50 index probes for a state query).
    try await postgres.execute("ANALYZE content.item_states")
    return LatencyStats(name: "favorites.put (seeding, 50 users in parallel)", concurrency: 50, samples: samples, elapsed: elapsed)
}

/// `measure`, or nothing when `BENCH_ONLY` leaves the benchmark out.
func measureIfSelected(
    _ name: String, concurrency: Int, duration: Duration, _ operation: @escaping @Sendable () async throws -> Void
) async throws -> LatencyStats? {
    if let only, !name.contains(only) { return nil }
    return try await meter.measure(name, concurrency: concurrency, duration: duration, operation)
}

/// JSON alone: encoding a page of 50 favorites and decoding it, on one thread, with
/// Foundation's coders and with the RPC layer's (`RPCJSON`: what a client's `call` decodes
/// with); the part of a decoded list call that is not I/O or SQL.
func codecBenchmarks() async throws -> [LatencyStats?] {
    let page = FavoritesPage(
        items: (0..<50).map { Favorite(itemID: catalog[$0], nickname: $0 % 5 == 0 ? "nick" : nil, position: Int64($0), favoritedAt: Timestamp(milliseconds: 1_795_317_839_123 + Int64($0))) },
        nextCursor: "eyJpIjoiYXJ0aWNsZS0wMDA0OSIsImsiOiJmciIsIm4iOjE3OTUzMTc4MzkxNzJ9")
    let foundation = try await measureIfSelected("JSON encode + decode of a 50-favorite page, Foundation (no I/O)", concurrency: 1, duration: .seconds(seconds)) {
        let data = try JSONEncoder().encode(page)
        _ = try JSONDecoder().decode(FavoritesPage.self, from: data)
    }
    let rpc = try await measureIfSelected("JSON encode + decode of a 50-favorite page, RPCJSON (no I/O)", concurrency: 1, duration: .seconds(seconds)) {
        let data = try RPCJSON.encode(page)
        _ = try RPCJSON.decode(FavoritesPage.self, from: ByteBuffer(data: data))
    }
    return [foundation, rpc]
}

/// Calls `method` as the gateway does (`callReturningJSON`: the result's bytes are passed on,
/// never decoded) and checks that the result is the object expected.
@Sendable func callAsGateway<Params, Result>(
    _ client: RPCClient, _ method: RPCMethod<Params, Result>, _ params: Params, expecting prefix: String
) async throws {
    let result = try await client.callReturningJSON(method, params)
    precondition(result.readableBytes > 200 && result.getString(at: result.readerIndex, length: prefix.utf8.count) == prefix)
}

func benchmarks(_ client: RPCClient) async throws -> [LatencyStats] {
    var rows: [LatencyStats?] = [try await seed(client)] + (try await codecBenchmarks())
    let duration = Duration.seconds(seconds)
    rows.append(try await measureIfSelected("state.query, 50 ids (result passed on, as the gateway)", concurrency: concurrency, duration: duration) {
        let params = StateQueryParams(userID: BenchData.randomUser(), itemIDs: BenchData.randomIDs(50))
        try await callAsGateway(client, ContentState.stateQuery, params, expecting: #"{"items":{"#)
    })
    rows.append(try await measureIfSelected("state.query, 50 ids (result decoded)", concurrency: concurrency, duration: duration) {
        let ids = BenchData.randomIDs(50)
        let result: StateQueryResult = try await client.call(
            ContentState.stateQuery, StateQueryParams(userID: BenchData.randomUser(), itemIDs: ids))
        precondition(!result.items.isEmpty)
    })
    rows.append(try await measureIfSelected("favorites.list recent, 50 (result passed on, as the gateway)", concurrency: concurrency, duration: duration) {
        let params = FavoritesListParams(userID: BenchData.randomUser(), order: .recent, limit: 50)
        try await callAsGateway(client, ContentState.favoritesList, params, expecting: #"{"items":[{"#)
    })
    rows.append(try await measureIfSelected("favorites.list recent, 50 (result decoded)", concurrency: concurrency, duration: duration) {
        let page: FavoritesPage = try await client.call(
            ContentState.favoritesList, FavoritesListParams(userID: BenchData.randomUser(), order: .recent, limit: 50))
        precondition(page.items.count == 50)
    })
    rows.append(try await measureIfSelected("favorites.list position, 50 (result passed on, as the gateway)", concurrency: concurrency, duration: duration) {
        let params = FavoritesListParams(userID: BenchData.randomUser(), order: .position, limit: 50)
        try await callAsGateway(client, ContentState.favoritesList, params, expecting: #"{"items":[{"#)
    })
    // A second page: the keyset cursor path.
    let firstPages = try await withThrowingTaskGroup(of: (UUID, String).self) { group in
        for user in users {
            group.addTask {
                let page: FavoritesPage = try await client.call(
                    ContentState.favoritesList, FavoritesListParams(userID: user, order: .recent, limit: 50))
                return (user, page.nextCursor!)
            }
        }
        return try await group.reduce(into: [(UUID, String)]()) { $0.append($1) }
    }
    rows.append(try await measureIfSelected("favorites.list recent, 50, page 2", concurrency: concurrency, duration: duration) {
        let (user, cursor) = firstPages[Int(BenchData.randomIndex(firstPages.count))]
        let page: FavoritesPage = try await client.call(
            ContentState.favoritesList, FavoritesListParams(userID: user, order: .recent, limit: 50, cursor: cursor))
        precondition(page.items.count == 50)
    })
    rows.append(try await measureIfSelected("state.changes, 50 from the start", concurrency: concurrency, duration: duration) {
        let page: ChangesPage = try await client.call(
            ContentState.stateChanges, ChangesParams(userID: BenchData.randomUser(), limit: 50))
        precondition(page.changes.count == 50)
    })
    rows.append(try await measureIfSelected("favorites.toggle (writes, 50 users)", concurrency: concurrency, duration: duration) {
        let _: FavoriteToggleResult = try await client.call(
            ContentState.favoritesToggle, ItemParams(userID: BenchData.randomUser(), itemID: BenchData.randomIDs(1)[0]))
    })
    return rows.compactMap { $0 }
}

/// Runs every benchmark with a client of its own.
func runBenchmarks() async throws -> [LatencyStats] {
    try await RPCClient.withClient(configuration: clientConfiguration, logger: logger) { client in
        try await benchmarks(client)
    }
}

let rows = try await withThrowingTaskGroup(of: Void.self) { group in
    group.addTask { try await server.run() }
    defer { group.cancelAll() }
    return try await runBenchmarks()
}
for user in users {
    _ = try await postgres.execute("DELETE FROM content.item_states WHERE user_id = $1", [.uuid(user)])
    _ = try await postgres.execute("DELETE FROM content.user_versions WHERE user_id = $1", [.uuid(user)])
}
await postgres.shutdown()

print("machine: \(ProcessInfo.processInfo.activeProcessorCount) cores; client, server and Postgres share them; Postgres pool \(poolSize)")
print(LatencyStats.header)
for row in rows { print(row.row) }
