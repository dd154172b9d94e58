import Logging
import Postgres
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol

/// The token service: signing keys, sessions, refresh rotation and revocation, on schema
/// `tokens` and Redis. Stateless, so it scales out. `start` returns its long-lived services.
public enum TokensApp {
    public static let name = "tokens"

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try CommonConfiguration(env, defaultRPCPort: 7002, defaultOpsPort: 9002)
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        let common = try commonConfiguration(env)
        let postgres = try await BackendBootstrap.postgres(
            env, schema: "tokens", migrations: TokenMigrations.all, logger: logger)
        let redis = try await BackendBootstrap.redis(env, logger: logger)
        var router = RPCRouter()
        router.registerHealth([.postgres(postgres), .redis(redis)], logger: logger)
        let server = try await BackendBootstrap.rpcServer(name: name, common: common, router: router, logger: logger)
        return [
            ShutdownAction {
                await redis.shutdown()
                await postgres.shutdown()
            },
            server,
        ]
    }
}
