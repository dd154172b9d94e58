import FoundationEssentials
import ServiceKit

/// What `tokens` reads from the environment besides the common settings (DESIGN.md section 3).
public struct TokensConfiguration: Sendable {
    public var environment: DeploymentEnvironment
    /// `iss` of every access token; pinned by verifiers.
    public var issuer: String
    /// `aud` of every access token; pinned by verifiers.
    public var audience: String
    /// The algorithm new access tokens are signed with (the newest key of that type signs).
    public var signingAlgorithm: SigningAlgorithm
    /// The folder of PEM keys, shared by every replica.
    public var signingKeysDirectory: URL
    /// How long an access token lives, and so how long a revocation is kept in Redis.
    public var accessTokenTTL: Duration
    /// The absolute lifetime of a session: refreshing never extends it.
    public var refreshTokenTTL: Duration
    /// How long a rotated refresh token still yields its successor (a retry after a lost response).
    /// At most 60 s (DESIGN.md §9.6): a stolen token replayed within it gets the live pair too.
    public var reuseGrace: Duration
    /// How often expired sessions and tokens are deleted.
    public var cleanupInterval: Duration = .seconds(60)
    /// Rows deleted per statement by the cleanup.
    public var cleanupBatchSize: Int = 500
    /// How often the key folder is read again (keys added by `tokens keygen` are picked up):
    /// `SIGNING_KEYS_RELOAD_INTERVAL` seconds, default 10.
    public var keyReloadInterval: Duration
    /// How long a new key is only published before it signs: `SIGNING_KEY_ACTIVATION_DELAY`
    /// seconds, default 900. It must outlast every replica's reload (`keyReloadInterval`), the
    /// gateway's JWKS cache (300 s, refetched early on an unknown `kid`) and the 300 s that
    /// `/.well-known/jwks.json` may stay in an outside verifier's HTTP cache: 610 s, with margin.
    /// Production refuses less than `keyReloadInterval` + 600 s (`minimumActivationDelay`).
    /// It counts from when a replica first read the key.
    public var signingKeyActivationDelay: Duration
    /// How often the Redis revocation marker is checked.
    public var reseedInterval: Duration = .seconds(1)

    /// The key folder used in development when `SIGNING_KEYS_DIR` is unset: private to the
    /// user (`$XDG_STATE_HOME/latchkey/development-signing-keys`, else under
    /// `~/.local/state`), never a shared path such as /tmp where another user could plant a key.
    public static var developmentKeysDirectory: URL {
        let state = ProcessInfo.processInfo.environment["XDG_STATE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        let base = state.map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state", isDirectory: true)
        return base.appendingPathComponent("latchkey/development-signing-keys", isDirectory: true)
    }

    public init(_ env: EnvironmentReader) throws {
        self.environment = try env.choice("ENVIRONMENT", default: .production)
        let production = self.environment == .production
        self.issuer = production ? try env.required("JWT_ISSUER") : env.string("JWT_ISSUER", default: "latchkey")
        self.audience = production ? try env.required("JWT_AUDIENCE") : env.string("JWT_AUDIENCE", default: "latchkey-app")
        self.signingAlgorithm = try env.choice("SIGNING_ALG", default: .rs256)
        if let directory = env.optional("SIGNING_KEYS_DIR") {
            self.signingKeysDirectory = URL(fileURLWithPath: directory, isDirectory: true)
        } else if production {
            throw ConfigurationError.missing("SIGNING_KEYS_DIR")
        } else {
            self.signingKeysDirectory = Self.developmentKeysDirectory
        }
        self.accessTokenTTL = try env.seconds("ACCESS_TOKEN_TTL", default: 900, range: 10...86_400)
        self.refreshTokenTTL = try env.seconds("REFRESH_TOKEN_TTL", default: 2_592_000, range: 60...31_536_000)
        self.reuseGrace = try env.seconds("REFRESH_REUSE_GRACE", default: 10, range: 0...60)
        self.keyReloadInterval = try env.seconds("SIGNING_KEYS_RELOAD_INTERVAL", default: 10, range: 1...3_600)
        self.signingKeyActivationDelay = try env.seconds("SIGNING_KEY_ACTIVATION_DELAY", default: 900, range: 0...86_400)
        let minimum = Self.minimumActivationDelay(reloadInterval: self.keyReloadInterval)
        if production && self.signingKeyActivationDelay < minimum {
            throw ConfigurationError.insecure(
                "SIGNING_KEY_ACTIVATION_DELAY",
                "at least \(minimum.components.seconds) s in production (SIGNING_KEYS_RELOAD_INTERVAL + 600 s): a key must not sign before "
                    + "every replica publishes it and cached JWKS (the gateway's and outside verifiers', 300 s each) are fetched again")
        }
    }

    /// The shortest activation delay production accepts: every replica's reload, then the
    /// gateway's JWKS cache (300 s) and an outside verifier's HTTP cache of the JWKS (300 s).
    static func minimumActivationDelay(reloadInterval: Duration) -> Duration {
        reloadInterval + .seconds(600)
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    var timeInterval: TimeInterval {
        Double(self.components.seconds) + Double(self.components.attoseconds) / 1e18
    }
}
