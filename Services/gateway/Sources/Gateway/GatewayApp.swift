import ContentStateService
import DPoP
import FoundationEssentials
import Hummingbird
import IdentityAPI
import Logging
import NIOCore
import Postgres
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol
import TokensAPI

/// The gateway: the public HTTP API in front of identity, tokens and content-state.
/// `start` returns its long-lived services, HTTP server last so it drains first.
public enum GatewayApp {
    public static let name = "gateway"

    public static func commonConfiguration(_ env: EnvironmentReader) throws -> CommonConfiguration {
        try GatewayConfiguration(env).common
    }

    public static func start(_ env: EnvironmentReader, logger: Logger) async throws -> [any Service] {
        let configuration = try GatewayConfiguration(env)
        let redis = try await BackendBootstrap.redis(env, logger: logger)
        let backends = Backends(configuration: configuration, logger: logger)
        let revocationCache = configuration.revocationCacheTTL > 0 ? RevocationCache(timeToLive: .seconds(configuration.revocationCacheTTL)) : nil
        let userCache = configuration.userCacheTTL > 0 ? UserCache(timeToLive: .seconds(configuration.userCacheTTL)) : nil
        // The content calls answered through the gateway's own pool, when it has one.
        var contentPostgres: PostgresClient?
        var contentCalls: ContentCalls?
        if let settings = configuration.content {
            let postgres = PostgresClient(
                configuration: PostgresConfiguration(url: settings.databaseURL, poolSize: settings.poolSize), logger: logger)
            contentPostgres = postgres
            contentCalls = ContentCalls(postgres: postgres, configuration: settings.rules)
        }
        let router = self.router(
            configuration: configuration, redis: redis, backends: backends, revocationCache: revocationCache, userCache: userCache,
            contentCalls: contentCalls, logger: logger)
        let app = PublicHTTPServer(
            responder: router.buildResponder(), maxBodyBytes: configuration.maxBodyBytes, serverName: name, logger: logger
        ).service(address: .hostname(configuration.httpHost, port: configuration.httpPort))
        let feeds: [any Service] =
            (revocationCache.map { [CacheFeed(redis: redis, cache: $0, channel: RevocationKeys.channel, logger: logger)] } ?? [])
            + (userCache.map { [CacheFeed(redis: redis, cache: $0, channel: UserChanges.channel, logger: logger)] } ?? [])
        // Readiness and metrics on their own port, off the public one; started before the
        // HTTP server so that probes answer while it drains.
        let ops = BackendBootstrap.opsServer(
            common: configuration.common, checks: ReadinessChecks.all(redis: redis, backends: backends, content: contentCalls),
            logger: logger)
        let reaper: [any Service] =
            configuration.guestTTL > 0
            ? [GuestReaper(administration: backends.administration, redis: redis, timeToLive: configuration.guestTTL, logger: logger)]
            : []
        let closeContent: [any Service] = contentPostgres.map { postgres in [ShutdownAction { await postgres.shutdown() }] } ?? []
        return [ShutdownAction { await redis.shutdown() }] + closeContent + feeds + backends.all + reaper + [ops, app]
    }

    static func router(
        configuration: GatewayConfiguration, redis: RedisClient, backends: Backends, revocationCache: RevocationCache?,
        userCache: UserCache?, contentCalls: ContentCalls? = nil, logger: Logger
    ) -> Router<GatewayRequestContext> {
        let router = Router(context: GatewayRequestContext.self)
        router.add(middleware: HTTPMetricsMiddleware())
        router.add(middleware: RequestIDMiddleware())
        router.add(middleware: ErrorMiddleware())
        if !configuration.corsAllowedOrigins.isEmpty {
            router.add(middleware: OriginCORSMiddleware(allowedOrigins: Set(configuration.corsAllowedOrigins)))
        }
        router.add(middleware: BodyLimitMiddleware(maxBodyBytes: configuration.maxBodyBytes))
        router.add(middleware: ClientOriginMiddleware(clientAddresses: ClientAddressResolver(trustedProxies: configuration.trustedProxies)))

        let keys = SigningKeyCache(tokens: backends.tokens, logger: logger)
        let orchestration = Orchestration(backends: backends, revocationCache: revocationCache, userCache: userCache)
        let rateLimiter = RateLimiter(redis: redis, clientAddresses: ClientAddressResolver(trustedProxies: configuration.trustedProxies))

        addLivenessRoute(to: router)
        OpenAPIDocument.add(to: router)
        AdminConsole.add(to: router)
        router.get(".well-known/jwks.json") { _, _ in
            var response = jsonResponse(try await keys.document())
            response.headers[.cacheControl] = "public, max-age=300"
            return response
        }

        let authentication = AuthMiddleware(
            verifier: AccessTokenVerifier(
                keys: keys, issuer: configuration.jwtIssuer, audience: configuration.jwtAudience,
                leeway: configuration.clockLeeway),
            revocations: RevocationChecker(redis: redis, failOpen: configuration.revocationFailOpen, cache: revocationCache),
            dpop: Self.dpopVerifier(configuration: configuration, redis: redis),
            deletionRetryPath: "/api/v1/auth/account")
        let auth = AuthRoutes(
            orchestration: orchestration, backends: backends, rateLimiter: rateLimiter, authentication: authentication,
            limits: configuration.rateLimits, maxBodyBytes: configuration.maxBodyBytes)
        let api = router.group("api/v1")
        auth.addPublic(to: api)
        let authenticated = api.group().add(middleware: authentication)
        auth.addAuthenticated(to: authenticated)
        ContentRoutes(contentState: backends.contentState, calls: contentCalls, maxBodyBytes: configuration.maxBodyBytes).add(to: authenticated)

        AdminRoutes(
            configuration: configuration.admin, redis: redis, administration: backends.administration, orchestration: orchestration,
            rateLimiter: rateLimiter, loginLimitPerMinute: configuration.rateLimits.adminLoginPerMinute,
            loginBudget: AdminLoginBudget(redis: redis, failuresPerHour: configuration.rateLimits.adminLoginFailuresPerHour),
            maxBodyBytes: configuration.maxBodyBytes
        ).add(to: router)
        return router
    }

    static func dpopVerifier(configuration: GatewayConfiguration, redis: RedisClient) -> DPoPVerifier {
        let check = DPoPProofCheck(maximumAge: configuration.dpop.proofMaxAge, leeway: configuration.clockLeeway)
        return DPoPVerifier(
            check: check,
            replays: DPoPReplays(line: RedisCommandLine(redis: redis), window: check.replayWindow, failOpen: configuration.revocationFailOpen),
            targetURL: RequestTargetURL(
                publicBaseURL: configuration.dpop.publicBaseURL,
                clientAddresses: ClientAddressResolver(trustedProxies: configuration.trustedProxies)),
            required: configuration.dpop.required)
    }
}
