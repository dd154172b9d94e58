import AuditTrail
import Logging
import Postgres
import PostgresService
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol

/// The token service: signing keys, sessions, refresh rotation and revocation, on schema
/// `tokens` and Redis. Stateless, so it scales out. `start` returns its long-lived services.
public enum TokensApp {
    public static let name = "tokens"
    /// The Postgres schema it owns.
    public static let schema = "tokens"
    /// The schema's migrations, for tests and tools that prepare a database.
    public static var migrations: [Migration] { TokenMigrations.all }

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try CommonConfiguration(env, defaultRPCPort: 7002, defaultOpsPort: 9002)
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        try await self.make(env, logger: logger).services
    }

    /// One running instance: its RPC server (for its port) and every service to run, in order.
    public struct Instance: Sendable {
        public let server: RPCServer
        public let keyRing: KeyRing
        /// The sessions of the refresh tokens this instance handed out last.
        let recentSessions: RecentSessions
        /// Its refreshes (with the line their rotations wait in).
        let rotation: RefreshRotation
        /// Its sessions (with the line their creations wait in).
        let sessions: SessionStore
        public let services: [any Service]
    }

    /// Builds the instance `start` runs; tests pass their own clock.
    public static func make(
        _ env: EnvironmentReader, logger: Logger, clock: TokenClock = .system,
        adjust: (inout TokensConfiguration) -> Void = { _ in }
    ) async throws -> Instance {
        let common = try commonConfiguration(env)
        var configuration = try TokensConfiguration(env)
        adjust(&configuration)
        let keyRing: KeyRing
        do {
            keyRing = try await KeyRing.load(
                folder: SigningKeyFolder(
                    url: configuration.signingKeysDirectory, requirePrivateFiles: configuration.environment == .production),
                algorithm: configuration.signingAlgorithm,
                activationDelay: configuration.signingKeyActivationDelay, generateIfMissing: configuration.environment == .development, logger: logger)
        } catch let error as SigningKeyError {
            throw ConfigurationError.insecure("SIGNING_KEYS_DIR", "\(error)")
        }
        let postgres = try await BackendBootstrap.postgres(
            env, schema: Self.schema, migrations: Self.migrations, logger: logger)
        let redis = try await BackendBootstrap.redis(env, logger: logger)

        let accessTTL = configuration.accessTokenTTL.timeInterval
        let revocations = RevocationList(redis: redis, accessTokenTTL: accessTTL, logger: logger)
        let sessions = SessionStore(postgres: postgres)
        let issuer = AccessTokenIssuer(
            keyRing: keyRing, issuer: configuration.issuer, audience: configuration.audience, accessTokenTTL: accessTTL)
        let recentSessions = RecentSessions()
        let rotation = RefreshRotation(
            postgres: postgres, issuer: issuer, revocations: revocations, recentSessions: recentSessions, clock: clock,
            reuseGrace: configuration.reuseGrace.timeInterval, logger: logger)
        let methods = TokenMethods(
            issuance: SessionIssuance(
                sessions: sessions, issuer: issuer, recentSessions: recentSessions, clock: clock,
                refreshTokenTTL: configuration.refreshTokenTTL.timeInterval),
            rotation: rotation,
            revocation: SessionRevocation(sessions: sessions, revocations: revocations, clock: clock),
            sessions: sessions,
            verifier: AccessTokenVerifier(
                keyRing: keyRing, issuer: configuration.issuer, audience: configuration.audience, sessions: sessions,
                revocations: revocations, clock: clock, logger: logger),
            keyRing: keyRing, clock: clock)

        var router = RPCRouter()
        let checks: [HealthCheck] = [.postgres(postgres), .redis(redis)]
        router.registerHealth(checks, logger: logger)
        methods.register(on: &router)
        let server = try await BackendBootstrap.rpcServer(name: name, common: common, router: router, logger: logger)
        let services: [any Service] = [
            ShutdownAction {
                await redis.shutdown()
                await postgres.shutdown()
            },
            RevocationReseeder(
                postgres: postgres, revocations: revocations, clock: clock, interval: configuration.reseedInterval, logger: logger),
            SessionCleanup(
                postgres: postgres, clock: clock, interval: configuration.cleanupInterval, batchSize: configuration.cleanupBatchSize,
                accessTokenTTL: accessTTL, reuseGrace: configuration.reuseGrace.timeInterval, logger: logger),
            KeyReloader(keyRing: keyRing, interval: configuration.keyReloadInterval, logger: logger),
            AuditRetention(
                trail: AuditTrail(postgres: postgres, table: TokensAudit.table),
                days: try env.int("AUDIT_RETENTION_DAYS", default: 90, range: 1...36_500), logger: logger),
            BackendBootstrap.opsServer(common: common, checks: checks, logger: logger),
            server,
        ]
        return Instance(server: server, keyRing: keyRing, recentSessions: recentSessions, rotation: rotation, sessions: sessions,
            services: services)
    }
}
