import Logging
import Postgres
import ServiceKit
import ServiceLifecycle
import ServiceProtocol

/// The identity service: provider verification, users, identities and linking, on schema
/// `identity`. `start` returns its long-lived services for `ServiceMain`.
public enum IdentityApp {
    public static let name = "identity"

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try CommonConfiguration(env, defaultRPCPort: 7001, defaultOpsPort: 9001)
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        let common = try commonConfiguration(env)
        let postgres = try await BackendBootstrap.postgres(
            env, schema: "identity", migrations: IdentityMigrations.all, logger: logger)
        var router = RPCRouter()
        router.registerHealth([.postgres(postgres)], logger: logger)
        let server = try await BackendBootstrap.rpcServer(name: name, common: common, router: router, logger: logger)
        return [ShutdownAction { await postgres.shutdown() }, server]
    }
}
