import ContentStateAPI
import ContentStateService
import Foundation
import Logging
import Postgres
import ServiceProtocol
import Testing

/// A content-state RPC server on a free loopback port, backed by the Postgres at
/// `DATABASE_URL` (schema `content`, migrated), with a client that calls it over TCP.
/// Tests share one per configuration and use a fresh user id each, so they run in parallel.
final class TestService: Sendable {
    let client: RPCClient
    let configuration: ContentStateConfiguration
    let postgres: PostgresClient

    private init(client: RPCClient, configuration: ContentStateConfiguration, postgres: PostgresClient) {
        self.client = client
        self.configuration = configuration
        self.postgres = postgres
    }

    /// The service with the default limits.
    static func standard() async throws -> TestService { try await standardTask.value }

    /// A service with `MAX_FAVORITES_PER_USER` 3 and `MAX_BATCH` 5, for the limit tests.
    static func smallLimits() async throws -> TestService { try await smallLimitsTask.value }

    /// A service of the caller's own, with a pool of its own (8 connections), for a test that
    /// holds connections on purpose: on the shared pool it would starve the tests around it.
    static func ownPool() async throws -> TestService { try await start(ContentStateConfiguration()) }

    private static let standardTask = Task { try await start(ContentStateConfiguration()) }
    private static let smallLimitsTask = Task { try await start(ContentStateConfiguration(maxFavoritesPerUser: 3, maxBatch: 5)) }

    private static func start(_ configuration: ContentStateConfiguration) async throws -> TestService {
        guard let url = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            throw MissingDatabase()
        }
        var logger = Logger(label: "content-state.test")
        logger.logLevel = .warning
        var postgresConfiguration = PostgresConfiguration(url: url, poolSize: 8)
        // Every test of the suite shares this pool: on a loaded machine a statement may wait long.
        postgresConfiguration.acquireTimeout = .seconds(60)
        let postgres = PostgresClient(configuration: postgresConfiguration, logger: logger)
        try await Migrator.migrate(postgres, schema: ContentStateApp.schema, migrations: ContentStateApp.migrations, logger: logger)
        var router = RPCRouter()
        ContentStateMethods.register(on: &router, postgres: postgres, configuration: configuration)
        let token = "content-state-test-token"
        let server = try await RPCServer.bind(
            configuration: RPCServer.Configuration(serviceName: "content-state", serviceToken: token), router: router, logger: logger)
        var clientConfiguration = RPCClient.Configuration(
            endpoints: [RPCEndpoint(host: "127.0.0.1", port: server.port)],
            serviceName: "content-state", callerName: "tests", serviceToken: token)
        clientConfiguration.callTimeout = .seconds(90)
        let client = RPCClient(configuration: clientConfiguration, logger: logger)
        // Both run for the rest of the test process.
        Task { try await server.run() }
        Task { try await client.run() }
        return TestService(client: client, configuration: configuration, postgres: postgres)
    }

    func call<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: String, _ params: Params, as type: Result.Type = Result.self
    ) async throws -> Result {
        try await self.client.call(method, params, as: Result.self)
    }

    func call<Params, Result>(_ method: RPCMethod<Params, Result>, _ params: Params) async throws -> Result {
        try await self.client.call(method, params)
    }

    /// The error code `method` fails with, or nil when it succeeds.
    func errorCode<Params, Result>(_ method: RPCMethod<Params, Result>, _ params: Params) async -> String? {
        await self.errorCode(method.name, params)
    }

    /// The error code `method` fails with, or nil when it succeeds.
    func errorCode<Params: Encodable & Sendable>(_ method: String, _ params: Params) async -> String? {
        do {
            _ = try await self.client.call(method, params, as: JSONValue.self)
            return nil
        } catch let error as RPCError {
            return error.code.rawValue
        } catch {
            return "unexpected: \(error)"
        }
    }

    /// The user's `user_versions` row: their change version and favorite count (nil when the
    /// user has none).
    func versionRow(of user: UUID) async throws -> (version: Int, favoriteCount: Int)? {
        let rows = try await self.postgres.query(
            "SELECT version, favorite_count FROM content.user_versions WHERE user_id = $1", [.uuid(user)])
        return try rows.first.map { (try $0.decode("version", as: Int.self), try $0.decode("favorite_count", as: Int.self)) }
    }
}

/// Tests need a real Postgres; without one they fail instead of skipping.
struct MissingDatabase: Error, CustomStringConvertible {
    var description: String { "DATABASE_URL is not set: run the tests with scripts/test" }
}
