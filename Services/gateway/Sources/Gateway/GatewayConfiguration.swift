import ContentStateService
import Crypto
import FoundationEssentials
import PostgresService
import ServiceKit
import ServiceProtocol
import TextCoding
import TokensAPI

/// The gateway's settings (DESIGN.md section 3).
public struct GatewayConfiguration: Sendable {
    public var common: CommonConfiguration
    public var httpHost: String
    public var httpPort: Int
    public var identityEndpoints: [RPCEndpoint]
    public var tokensEndpoints: [RPCEndpoint]
    public var contentStateEndpoints: [RPCEndpoint]
    /// The content calls answered in the gateway's own process (`CONTENT_DATABASE_URL`).
    public var content: ContentDatabaseSettings?
    public var maxBodyBytes: Int
    /// Pinned when verifying access tokens: the same values `tokens` signs with.
    public var jwtIssuer: String
    public var jwtAudience: String
    /// Let authenticated requests through when Redis cannot be asked (default: fail closed).
    public var revocationFailOpen: Bool
    /// Seconds a live revocation verdict is kept (`REVOCATION_CACHE_TTL`; 0: read Redis on
    /// every request). Revocations drop it at once through `latchkey:revocations`.
    public var revocationCacheTTL: Int
    /// Seconds a user read from identity is kept for `me` and refresh (`USER_CACHE_TTL`; 0: ask
    /// identity every time). Identity's announcements on `latchkey:users` drop it at once.
    public var userCacheTTL: Int
    /// Requests per minute per client IP; 0 turns a limit off.
    public var rateLimits: RateLimits
    /// Browser origins allowed by CORS; empty: no CORS headers.
    public var corsAllowedOrigins: [String]
    /// The proxies in front of the gateway (`TRUSTED_PROXIES`, addresses or CIDR blocks; none
    /// by default): only behind one of them is `X-Forwarded-For` read.
    var trustedProxies: [IPAddressRange]
    public var admin: AdminConfiguration
    /// Seconds an access token may be past `exp` or before `iat` because of clock skew.
    public var clockLeeway: Int
    /// Seconds a guest may go unused before it is deleted (`GUEST_TTL`, 30 days; 0: never).
    public var guestTTL: Int
    /// Sessions bound to a device's key (DPoP, DESIGN.md section 9.2).
    public var dpop: DPoPSettings

    public struct DPoPSettings: Sendable {
        /// `DPOP_REQUIRED` (false): a sign-in, guest or refresh without a proof, and an
        /// unbound access token, are refused.
        public var required: Bool
        /// `DPOP_PROOF_MAX_AGE` (60 s): how old a proof's `iat` may be, plus the clock leeway.
        public var proofMaxAge: Int
        /// `PUBLIC_BASE_URL`: the scheme, host and any path prefix clients call the gateway by,
        /// which a proof's `htu` must name; unset, the request's own scheme and `Host`.
        public var publicBaseURL: String?
    }

    /// The gateway's own connection to content-state's schema: a client's favorites pages,
    /// state queries and changes feed, and its writes (favorites, read marks, unlikes), are then
    /// answered by the gateway itself with content-state's code, one hop fewer. The read and
    /// unlikes lists and every other call still go to content-state, which owns and migrates
    /// the schema.
    public struct ContentDatabaseSettings: Sendable {
        /// `CONTENT_DATABASE_URL`: a libpq URI of a role that may read, insert and update the
        /// tables of schema `content`, and nothing else (`latchkey_gateway`).
        public var databaseURL: String
        /// `CONTENT_POOL_SIZE` (8): connections of the gateway's content pool.
        public var poolSize: Int
        /// content-state's rules, from the variables content-state reads (`MAX_BATCH`,
        /// `MAX_FAVORITES_PER_USER`): give the gateway the same values.
        public var rules: ContentStateConfiguration
    }

    public struct RateLimits: Sendable {
        public var signInPerMinute: Int
        public var refreshPerMinute: Int
        public var adminLoginPerMinute: Int
        /// Failed admin logins per hour from all clients together (`ADMIN_LOGIN_FAILURE_BUDGET`).
        public var adminLoginFailuresPerHour: Int
    }

    /// `/healthz`, `/readyz` and `/metrics` on `RPC_HOST:OPS_PORT`, beside the backends' 9001–9003.
    public static let defaultOpsPort = 9000

    public init(_ env: EnvironmentReader) throws {
        let common = try CommonConfiguration(env, defaultRPCPort: 0, defaultOpsPort: Self.defaultOpsPort)
        self.common = common
        let production = common.environment == .production
        self.httpHost = env.string("HTTP_HOST", default: "0.0.0.0")
        self.httpPort = try env.port("HTTP_PORT", default: 8080)
        self.identityEndpoints = try Self.endpoints(env, "IDENTITY_ENDPOINTS", default: "127.0.0.1:7001")
        self.tokensEndpoints = try Self.endpoints(env, "TOKENS_ENDPOINTS", default: "127.0.0.1:7002")
        self.contentStateEndpoints = try Self.endpoints(env, "CONTENT_STATE_ENDPOINTS", default: "127.0.0.1:7003")
        self.maxBodyBytes = try env.int("MAX_BODY_BYTES", default: 65536, range: 1024...(16 << 20))
        self.jwtIssuer = production ? try env.required("JWT_ISSUER") : env.string("JWT_ISSUER", default: "latchkey")
        self.jwtAudience = production ? try env.required("JWT_AUDIENCE") : env.string("JWT_AUDIENCE", default: "latchkey-app")
        self.revocationFailOpen = try env.bool("REVOCATION_FAIL_OPEN", default: false)
        self.revocationCacheTTL = try env.int("REVOCATION_CACHE_TTL", default: 5, range: 0...60)
        self.userCacheTTL = try env.int("USER_CACHE_TTL", default: 60, range: 0...3600)
        self.rateLimits = RateLimits(
            signInPerMinute: try env.int("RATE_LIMIT_SIGNIN_PER_MIN", default: 120),
            refreshPerMinute: try env.int("RATE_LIMIT_REFRESH_PER_MIN", default: 300),
            adminLoginPerMinute: try env.int("RATE_LIMIT_ADMIN_LOGIN_PER_MIN", default: 10),
            adminLoginFailuresPerHour: try env.int("ADMIN_LOGIN_FAILURE_BUDGET", default: 100, range: 0...1_000_000))
        self.corsAllowedOrigins = env.list("CORS_ALLOWED_ORIGINS")
        self.trustedProxies = try env.list("TRUSTED_PROXIES").map { entry in
            guard let range = IPAddressRange(entry) else {
                throw ConfigurationError.invalid("TRUSTED_PROXIES", "a comma list of addresses or CIDR blocks (10.0.0.0/8, fd00::/8)")
            }
            return range
        }
        // Replaced: trusting the last entry from anyone let any client pick its own address.
        if try env.bool("TRUST_X_FORWARDED_FOR", default: false) {
            throw ConfigurationError.insecure(
                "TRUST_X_FORWARDED_FOR", "is no longer read; list the proxies in front of the gateway in TRUSTED_PROXIES")
        }
        self.admin = try AdminConfiguration(env, environment: common.environment)
        self.guestTTL = try env.int("GUEST_TTL", default: 2_592_000, range: 0...(10 * 365 * 86_400))
        // Revocation keys outlive a token by at most this (RevocationKeys.skewMargin).
        self.clockLeeway = try env.int("TOKEN_CLOCK_LEEWAY", default: 30, range: 0...RevocationKeys.maximumVerifierLeeway)
        var publicBaseURL = env.optional("PUBLIC_BASE_URL")
        if let url = publicBaseURL {
            guard url.hasPrefix("https://") || url.hasPrefix("http://"), !url.contains("?"), !url.contains("#"),
                !url.contains(" "), url.utf8.count <= 2048
            else {
                throw ConfigurationError.invalid("PUBLIC_BASE_URL", "the URL clients call the gateway by (https://api.example.com)")
            }
            while publicBaseURL?.hasSuffix("/") == true { publicBaseURL?.removeLast() }
        }
        // The read-only setting of the release before: its role cannot write, so it is refused
        // by name rather than used for writes or passed over in silence.
        let renamed = [("CONTENT_READ_DATABASE_URL", "CONTENT_DATABASE_URL"), ("CONTENT_READ_POOL_SIZE", "CONTENT_POOL_SIZE")]
        for (old, new) in renamed where env.optional(old) != nil {
            throw ConfigurationError.invalid(old, "unset: it is now \(new), whose role also inserts and updates (docs/deploy.md)")
        }
        if let url = try env.postgresURL("CONTENT_DATABASE_URL") {
            self.content = ContentDatabaseSettings(
                databaseURL: url, poolSize: try env.int("CONTENT_POOL_SIZE", default: 8, range: 1...200),
                rules: try ContentStateConfiguration(env))
        }
        self.dpop = DPoPSettings(
            required: try env.bool("DPOP_REQUIRED", default: false),
            proofMaxAge: try env.int("DPOP_PROOF_MAX_AGE", default: 60, range: 1...3600),
            publicBaseURL: publicBaseURL)
    }

    private static func endpoints(_ env: EnvironmentReader, _ name: String, default defaultValue: String) throws -> [RPCEndpoint] {
        do {
            return try RPCEndpoint.parseList(env.string(name, default: defaultValue))
        } catch {
            throw ConfigurationError.invalid(name, "a comma list of host:port")
        }
    }
}

/// How the admin surface authenticates: a bcrypt hash (`ADMIN_PASSWORD_HASH`), or in
/// development a plain `ADMIN_PASSWORD`. With neither, admin login is refused.
public struct AdminConfiguration: Sendable {
    public enum Credential: Sendable {
        case bcryptHash(String)
        case plainPassword(String)
        case none
    }

    public var credential: Credential
    /// How long an admin session lives (`ADMIN_SESSION_TTL`, seconds).
    public var sessionTTL: Int
    /// Whether the cookie carries `Secure` (everywhere but development).
    public var secureCookie: Bool

    public init(_ env: EnvironmentReader, environment: DeploymentEnvironment) throws {
        if let hash = env.optional("ADMIN_PASSWORD_HASH") {
            guard hash.hasPrefix("$2"), hash.utf8.count == 60, let cost = Self.bcryptCost(hash) else {
                throw ConfigurationError.invalid("ADMIN_PASSWORD_HASH", "a bcrypt hash ($2b$12$..., 60 characters)")
            }
            guard cost >= Self.minimumBcryptCost else {
                throw ConfigurationError.insecure(
                    "ADMIN_PASSWORD_HASH", "has bcrypt cost \(cost); at least \(Self.minimumBcryptCost) is needed (12 recommended)")
            }
            self.credential = .bcryptHash(hash)
        } else if let password = env.optional("ADMIN_PASSWORD") {
            guard environment == .development else {
                throw ConfigurationError.insecure("ADMIN_PASSWORD", "is accepted in development only; set ADMIN_PASSWORD_HASH (bcrypt)")
            }
            self.credential = .plainPassword(password)
        } else {
            self.credential = .none
        }
        self.sessionTTL = try env.int("ADMIN_SESSION_TTL", default: 28_800, range: 60...604_800)
        self.secureCookie = environment != .development
    }

    /// The lowest bcrypt cost accepted: below it a stolen hash is cheap to guess from.
    public static let minimumBcryptCost = 10

    /// The cost of a `$2?$NN$...` hash.
    static func bcryptCost(_ hash: String) -> Int? {
        let parts = hash.split(separator: "$", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[2].count == 2 else { return nil }
        return Int(parts[2])
    }

    /// What an admin session is bound to: a digest of the configured credential, so that every
    /// session opened under the old password ends when the password (its hash) changes.
    public var credentialFingerprint: String {
        let text: String
        switch self.credential {
        case .bcryptHash(let hash): text = "bcrypt:" + hash
        case .plainPassword(let password): text = "plain:" + password
        case .none: text = "none"
        }
        return HexDigit.lowercase(SHA256.hash(data: Data(("latchkey-admin-session:" + text).utf8)))
    }
}
