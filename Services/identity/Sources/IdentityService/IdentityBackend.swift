import IdentityAPI
import AsyncHTTPClient
import FoundationEssentials
import Logging
import Postgres
import Redis
import ServiceLifecycle
import ServiceProtocol

/// Everything the identity service runs, built from its configuration: provider verifiers
/// with their JWKS caches, the stores, Apple REST when configured. `register(on:)` adds the
/// RPC methods; `services` are the background workers to run beside the RPC server.
public final class IdentityBackend: Sendable {
    public let configuration: IdentityConfiguration
    let http: HTTPClient
    let verifiers: ProviderVerifiers
    let users: UserStore
    let signInFlow: SignInFlow
    let appleNotifications: AppleNotificationReceiver
    let revocationWorker: AppleRevocationWorker?
    let userChanges: UserChangePublisher
    let logger: Logger

    /// `redis` is where user changes are announced (`UserChanges.channel`); nil announces none.
    public init(
        configuration: IdentityConfiguration, postgres: PostgresClient, redis: RedisClient? = nil, clock: IdentityClock = .system,
        logger: Logger
    ) async throws {
        self.configuration = configuration
        self.logger = logger
        self.userChanges = UserChangePublisher(redis: redis, logger: logger)
        var httpConfiguration = HTTPClient.Configuration()
        httpConfiguration.timeout = .init(connect: .seconds(2), read: .seconds(Int64(configuration.providerTimeout)))
        self.http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: httpConfiguration)
        let providerHTTP = ProviderHTTP(client: self.http, timeout: configuration.providerTimeout)
        self.verifiers = ProviderVerifiers(configuration: configuration, http: providerHTTP, clock: clock, logger: logger)
        self.users = UserStore(postgres: postgres)
        let identities = IdentityStore(postgres: postgres)
        var appleAuthorizations: AppleAuthorizations?
        if let rest = configuration.appleREST {
            let secrets = try await AppleClientSecret(
                teamID: rest.teamID, keyID: rest.keyID, privateKeyPEM: rest.privateKeyPEM, clock: clock)
            let client = AppleTokenClient(
                http: providerHTTP, secrets: secrets, tokenURL: rest.tokenURL, revokeURL: rest.revokeURL)
            let cipher = RefreshTokenCipher(key: rest.tokenEncryptionKey)
            appleAuthorizations = AppleAuthorizations(
                client: client, cipher: cipher, identities: identities, verifier: self.verifiers.apple, logger: logger)
            self.revocationWorker = AppleRevocationWorker(postgres: postgres, client: client, cipher: cipher, logger: logger)
        } else {
            self.revocationWorker = nil
        }
        self.appleNotifications = AppleNotificationReceiver(
            verifier: self.verifiers.appleNotifications, store: AppleNotificationStore(postgres: postgres),
            appleConfigured: !configuration.apple.audiences.isEmpty, logger: logger)
        self.signInFlow = SignInFlow(
            verifiers: self.verifiers, identities: identities, users: self.users,
            autoLinkByEmail: configuration.autoLinkByEmail, appleAuthorizations: appleAuthorizations, logger: logger)
    }

    /// Background work to run while serving (the Apple revocation worker and the webhook
    /// dispatcher, when configured).
    public var services: [any Service] {
        var services: [any Service] = self.revocationWorker.map { [$0] } ?? []
        if let webhooks = self.configuration.webhooks {
            services.append(WebhookDispatcher(postgres: self.users.postgres, http: self.http, settings: webhooks, logger: self.logger))
        }
        return services
    }

    /// Closes the HTTP client; call after the RPC server has drained.
    public func shutdown() async {
        try? await self.http.shutdown()
    }

    /// JWKS fetches started so far per provider.
    public func jwksFetchCounts() async -> [IdentityProvider: Int] {
        await self.verifiers.fetchCounts()
    }

    /// The user lifecycle feed (DESIGN.md section 9.4).
    var events: EventFeed { EventFeed(postgres: self.users.postgres) }

    /// After a deletion or unlink queued revocations: look at the outbox now, without waiting.
    func revocationsQueued() {
        self.revocationWorker?.nudge()
    }
}
