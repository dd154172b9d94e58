import Logging
import Postgres
import PostgresService
import ServiceKit
import ServiceLifecycle
import ServiceProtocol

/// The content-state service: favorites, read status, unlikes and the changes feed, on schema
/// `content`. `start` returns its long-lived services for `ServiceMain`.
public enum ContentStateApp {
    public static let name = "content-state"
    /// The schema this service owns.
    public static let schema = "content"

    /// The schema's migrations, for tools and tests that prepare a database themselves.
    public static var migrations: [Migration] { ContentStateMigrations.all }

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try CommonConfiguration(env, defaultRPCPort: 7003, defaultOpsPort: 9003)
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        let common = try commonConfiguration(env)
        let configuration = try ContentStateConfiguration(env)
        let postgres = try await BackendBootstrap.postgres(
            env, schema: schema, migrations: ContentStateMigrations.all, logger: logger)
        var router = RPCRouter()
        let checks: [HealthCheck] = [.postgres(postgres)]
        router.registerHealth(checks, logger: logger)
        ContentStateMethods.register(on: &router, postgres: postgres, configuration: configuration)
        let server = try await BackendBootstrap.rpcServer(name: name, common: common, router: router, logger: logger)
        let ops = BackendBootstrap.opsServer(common: common, checks: checks, logger: logger)
        // Stopped in reverse: the RPC server drains, then the ops server stops, then the pool closes.
        return [ShutdownAction { await postgres.shutdown() }, ops, server]
    }
}
