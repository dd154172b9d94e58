import FoundationEssentials
import ServiceKit

/// The identity service's settings (DESIGN.md section 3), read from the environment.
public struct IdentityConfiguration: Sendable {
    /// One provider's verification settings.
    public struct ProviderSettings: Sendable {
        /// Accepted `aud` values (Apple bundle / services IDs, Google client IDs); empty turns the provider off.
        public var audiences: [String]
        public var jwksURL: String
    }

    /// Sign in with Apple REST (code exchange and revocation); present only when configured.
    public struct AppleREST: Sendable {
        public var teamID: String
        public var keyID: String
        /// The `.p8` key's PEM text.
        public var privateKeyPEM: String
        public var tokenURL: String
        public var revokeURL: String
        /// AES-256-GCM key for the stored Apple refresh tokens (`APPLE_TOKEN_ENCRYPTION_KEY`).
        public var tokenEncryptionKey: [UInt8]
    }

    public var apple: ProviderSettings
    public var google: ProviderSettings
    public var googleTokenInfoURL: String
    public var googleUserInfoURL: String
    public var autoLinkByEmail: Bool
    public var appleREST: AppleREST?
    /// Allowed clock difference for `exp` and `iat` (`TOKEN_CLOCK_LEEWAY`, 60 s).
    public var clockLeeway: TimeInterval
    /// Least time between two JWKS fetches caused by unknown `kid`s (`JWKS_REFETCH_INTERVAL`, 10 s).
    public var jwksRefetchInterval: TimeInterval
    /// Timeout of one call to a provider (`PROVIDER_HTTP_TIMEOUT`, 5 s).
    public var providerTimeout: TimeInterval
    /// Where each user event is POSTed (`WEBHOOK_URLS`; empty: nowhere), signed with
    /// `WEBHOOK_SECRET`, retried with backoff up to `WEBHOOK_MAX_BACKOFF` (300 s).
    public var webhooks: WebhookSettings?

    /// The webhook receivers and how deliveries to them are signed and retried.
    public struct WebhookSettings: Sendable {
        public var urls: [String]
        public var secret: [UInt8]
        public var maximumBackoff: Duration
        /// The first wait after a failure, doubled after each.
        public var initialBackoff: Duration = .seconds(1)
    }

    public init(_ env: EnvironmentReader, environment: DeploymentEnvironment) throws {
        self.apple = ProviderSettings(
            audiences: env.list("APPLE_AUDIENCES"),
            jwksURL: try Self.url(env, "APPLE_JWKS_URL", "https://appleid.apple.com/auth/keys", environment))
        self.google = ProviderSettings(
            audiences: env.list("GOOGLE_AUDIENCES"),
            jwksURL: try Self.url(env, "GOOGLE_JWKS_URL", "https://www.googleapis.com/oauth2/v3/certs", environment))
        self.googleTokenInfoURL = try Self.url(
            env, "GOOGLE_TOKENINFO_URL", "https://oauth2.googleapis.com/tokeninfo", environment)
        self.googleUserInfoURL = try Self.url(
            env, "GOOGLE_USERINFO_URL", "https://openidconnect.googleapis.com/v1/userinfo", environment)
        self.autoLinkByEmail = try env.bool("AUTO_LINK_BY_EMAIL", default: true)
        self.clockLeeway = TimeInterval(try env.int("TOKEN_CLOCK_LEEWAY", default: 60, range: 0...600))
        self.jwksRefetchInterval = TimeInterval(try env.int("JWKS_REFETCH_INTERVAL", default: 10, range: 0...3600))
        self.providerTimeout = TimeInterval(try env.int("PROVIDER_HTTP_TIMEOUT", default: 5, range: 1...60))
        self.appleREST = try Self.appleREST(env, environment)
        self.webhooks = try Self.webhooks(env, environment)
    }

    /// Webhooks are on when `WEBHOOK_URLS` names at least one URL; then `WEBHOOK_SECRET` is
    /// required (at least 16 characters in production).
    private static func webhooks(_ env: EnvironmentReader, _ environment: DeploymentEnvironment) throws -> WebhookSettings? {
        let urls = try env.list("WEBHOOK_URLS").map { url in
            guard url.hasPrefix("https://") || (environment == .development && url.hasPrefix("http://")) else {
                throw ConfigurationError.invalid("WEBHOOK_URLS", environment == .production ? "https:// URLs" : "http(s):// URLs")
            }
            return url
        }
        guard !urls.isEmpty else { return nil }
        guard let secret = env.optional("WEBHOOK_SECRET"), !secret.isEmpty else { throw ConfigurationError.missing("WEBHOOK_SECRET") }
        if environment == .production && secret.utf8.count < 16 {
            throw ConfigurationError.insecure("WEBHOOK_SECRET", "must be at least 16 characters in production")
        }
        return WebhookSettings(
            urls: urls, secret: Array(secret.utf8),
            maximumBackoff: try env.seconds("WEBHOOK_MAX_BACKOFF", default: 300, range: 1...86_400))
    }

    /// Apple REST is on when `APPLE_TEAM_ID`, `APPLE_KEY_ID` and `APPLE_PRIVATE_KEY_PATH` are all set.
    private static func appleREST(_ env: EnvironmentReader, _ environment: DeploymentEnvironment) throws -> AppleREST? {
        let teamID = env.optional("APPLE_TEAM_ID")
        let keyID = env.optional("APPLE_KEY_ID")
        let keyPath = env.optional("APPLE_PRIVATE_KEY_PATH")
        guard teamID != nil || keyID != nil || keyPath != nil else { return nil }
        guard let teamID else { throw ConfigurationError.missing("APPLE_TEAM_ID") }
        guard let keyID else { throw ConfigurationError.missing("APPLE_KEY_ID") }
        guard let keyPath else { throw ConfigurationError.missing("APPLE_PRIVATE_KEY_PATH") }
        guard let pem = try? String(contentsOfFile: keyPath, encoding: .utf8), pem.contains("PRIVATE KEY") else {
            throw ConfigurationError.invalid("APPLE_PRIVATE_KEY_PATH", "a readable .p8 (PEM) file")
        }
        let encryptionKey: [UInt8]
        if let text = env.optional("APPLE_TOKEN_ENCRYPTION_KEY") {
            guard let data = Data(base64Encoded: text), data.count == 32 else {
                throw ConfigurationError.invalid("APPLE_TOKEN_ENCRYPTION_KEY", "32 bytes in base64")
            }
            encryptionKey = Array(data)
        } else if environment == .development {
            // Stored tokens become unreadable after a restart; acceptable only in development.
            encryptionKey = (0..<32).map { _ in UInt8.random(in: 0...255) }
        } else {
            throw ConfigurationError.missing("APPLE_TOKEN_ENCRYPTION_KEY")
        }
        return AppleREST(
            teamID: teamID, keyID: keyID, privateKeyPEM: pem,
            tokenURL: try url(env, "APPLE_TOKEN_URL", "https://appleid.apple.com/auth/token", environment),
            revokeURL: try url(env, "APPLE_REVOKE_URL", "https://appleid.apple.com/auth/revoke", environment),
            tokenEncryptionKey: encryptionKey)
    }

    /// A provider URL; production accepts only https.
    private static func url(
        _ env: EnvironmentReader, _ name: String, _ defaultValue: String, _ environment: DeploymentEnvironment
    ) throws -> String {
        let value = env.string(name, default: defaultValue)
        let secure = value.hasPrefix("https://")
        guard secure || (environment == .development && value.hasPrefix("http://")) else {
            throw ConfigurationError.invalid(name, environment == .production ? "an https:// URL" : "an http(s):// URL")
        }
        return value
    }
}
