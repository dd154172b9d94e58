import AuditTrail
import Logging
import Postgres
import PostgresService
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol

/// The identity service: provider verification, users, identities and linking, on schema
/// `identity`. `start` returns its long-lived services for `ServiceMain`.
public enum IdentityApp {
    public static let name = "identity"
    /// The Postgres schema it owns.
    public static let schema = "identity"

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try CommonConfiguration(env, defaultRPCPort: 7001, defaultOpsPort: 9001)
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        let common = try commonConfiguration(env)
        let configuration = try IdentityConfiguration(env, environment: common.environment)
        if configuration.apple.audiences.isEmpty && configuration.google.audiences.isEmpty {
            logger.warning("Neither APPLE_AUDIENCES nor GOOGLE_AUDIENCES is set: every sign-in will be refused")
        }
        let postgres = try await BackendBootstrap.postgres(
            env, schema: Self.schema, migrations: Self.migrations, logger: logger)
        // Optional: where user changes are announced to the gateways' user caches.
        let redis: RedisClient? = env.optional("REDIS_URL") == nil ? nil : try await BackendBootstrap.redis(env, logger: logger)
        if redis == nil {
            logger.warning(
                "REDIS_URL is not set: user changes are not announced, so a gateway may show a changed user until its USER_CACHE_TTL lapses")
        }
        let backend = try await IdentityBackend(configuration: configuration, postgres: postgres, redis: redis, logger: logger)
        let retention = AuditRetention(
            trail: AuditTrail(postgres: postgres, table: IdentityAudit.table),
            days: try env.int("AUDIT_RETENTION_DAYS", default: 90, range: 1...36_500), logger: logger)
        let eventRetention = EventRetention(
            feed: EventFeed(postgres: postgres), days: try env.int("EVENT_RETENTION_DAYS", default: 30, range: 1...36_500), logger: logger)
        var router = RPCRouter()
        let checks: [HealthCheck] = [.postgres(postgres)]
        router.registerHealth(checks, logger: logger)
        backend.register(on: &router)
        let server = try await BackendBootstrap.rpcServer(name: name, common: common, router: router, logger: logger)
        let ops = BackendBootstrap.opsServer(common: common, checks: checks, logger: logger)
        // Started in order, stopped in reverse: the RPC server drains first, then the ops
        // server, the worker, then the pools.
        return [
            ShutdownAction {
                await postgres.shutdown()
                await redis?.shutdown()
            },
            ShutdownAction { await backend.shutdown() },
        ]
            + backend.services + [retention, eventRetention, ops, server]
    }

    /// The schema's migrations, for tests and tools that prepare a database.
    public static var migrations: [Migration] { IdentityMigrations.all }
}
