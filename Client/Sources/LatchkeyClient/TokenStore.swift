import Foundation

/// What the client keeps between launches: the token pair, how long the access token lives,
/// the user they belong to, and whether a refresh of the pair was in flight.
public struct StoredTokens: Codable, Hashable, Sendable {
    public var accessToken: String
    public var refreshToken: String
    /// The access token's `exp`, as the gateway's clock has it. The client does not compare it
    /// with the device's clock: it counts ``lifetime`` from ``receivedAt``.
    public var expiresAt: Date
    /// When the session ends: after it the user must sign in again.
    public var refreshExpiresAt: Date
    /// When this client received the pair, by the device's clock.
    public var receivedAt: Date
    /// The access token's lifetime when it was received (the gateway's `expires_in`), in seconds.
    public var lifetime: TimeInterval
    /// Set while a refresh of ``refreshToken`` is in flight (written before the request goes out):
    /// a client that finds it at launch, still within the refresh window, retries that refresh
    /// at once, so an answer lost to the app being suspended or killed does not end the session.
    public var refreshStartedAt: Date?
    public var user: User
    /// The gateway's `token_type`: `DPoP` for a session bound to the device's key (every request
    /// and refresh then carries a proof by it), `Bearer` (or nil, stored by an earlier version)
    /// otherwise.
    public var tokenType: String?

    /// Whether the session is bound to the device's key.
    public var isBound: Bool { self.tokenType?.lowercased() == "dpop" }

    /// `lifetime` defaults to `expiresAt` minus `receivedAt`.
    public init(
        accessToken: String, refreshToken: String, expiresAt: Date, refreshExpiresAt: Date, receivedAt: Date,
        lifetime: TimeInterval? = nil, refreshStartedAt: Date? = nil, user: User, tokenType: String? = nil
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.refreshExpiresAt = refreshExpiresAt
        self.receivedAt = receivedAt
        self.lifetime = lifetime ?? max(0, expiresAt.timeIntervalSince(receivedAt))
        self.refreshStartedAt = refreshStartedAt
        self.user = user
        self.tokenType = tokenType
    }

    enum CodingKeys: String, CodingKey {
        case accessToken, refreshToken, expiresAt, refreshExpiresAt, receivedAt, lifetime, refreshStartedAt, user, tokenType
    }

    /// Reads what an earlier version stored too (no `lifetime`, `refreshStartedAt` or `tokenType`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            accessToken: try container.decode(String.self, forKey: .accessToken),
            refreshToken: try container.decode(String.self, forKey: .refreshToken),
            expiresAt: try container.decode(Date.self, forKey: .expiresAt),
            refreshExpiresAt: try container.decode(Date.self, forKey: .refreshExpiresAt),
            receivedAt: try container.decode(Date.self, forKey: .receivedAt),
            lifetime: try container.decodeIfPresent(TimeInterval.self, forKey: .lifetime),
            refreshStartedAt: try container.decodeIfPresent(Date.self, forKey: .refreshStartedAt),
            user: try container.decode(User.self, forKey: .user),
            tokenType: try container.decodeIfPresent(String.self, forKey: .tokenType))
    }
}

/// Where the client keeps ``StoredTokens``: ``KeychainTokenStore`` in an app (the default on
/// Apple platforms), ``FileTokenStore`` for a command-line tool or a Linux program (the default
/// there), ``InMemoryTokenStore`` when nothing may outlive the process.
///
/// Several clients may share one store (an app and its extension, two processes of a tool):
/// each refresh runs inside ``withExclusiveAccess(_:)``, re-reads the store, adopts a newer
/// pair another client saved, and saves its own before using it.
public protocol TokenStore: Sendable {
    /// The stored tokens, or nil when there are none.
    func load() async throws -> StoredTokens?
    /// Replaces whatever is stored.
    func save(_ tokens: StoredTokens) async throws
    /// Removes the stored tokens; no error when there were none.
    func clear() async throws
    /// Runs `body` while no other client of the same stored tokens runs its own, in this
    /// process or another. The default runs it at once: a store shared between processes must
    /// implement it (the file and Keychain stores do, with a lock file).
    func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T
}

extension TokenStore {
    public func withExclusiveAccess<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await body()
    }
}

/// A ``TokenStore`` that forgets everything when the process ends: only when asked for.
public typealias InMemoryTokenStore = InMemoryStore<StoredTokens>

/// A ``TokenStore`` in one JSON file that only its owner can read (mode 0600), replaced
/// atomically on every save, so a crash leaves the old pair or the new one, never half of one.
/// Processes sharing the file take turns through a lock file beside it (`<file>.lock`).
public typealias FileTokenStore = FileStore<StoredTokens>

extension InMemoryStore: TokenStore where Value == StoredTokens {}
extension FileStore: TokenStore where Value == StoredTokens {}
