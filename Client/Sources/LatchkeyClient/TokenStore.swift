import Foundation

/// What the client keeps between launches: the token pair, when each stops working, and the user
/// they belong to.
public struct StoredTokens: Codable, Hashable, Sendable {
    public var accessToken: String
    public var refreshToken: String
    /// The access token's `exp`.
    public var expiresAt: Date
    /// When the session ends: after it the user must sign in again.
    public var refreshExpiresAt: Date
    /// When this client received the pair; with `expiresAt` it gives the access token's lifetime.
    public var receivedAt: Date
    public var user: User

    public init(
        accessToken: String, refreshToken: String, expiresAt: Date, refreshExpiresAt: Date, receivedAt: Date, user: User
    ) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
        self.refreshExpiresAt = refreshExpiresAt
        self.receivedAt = receivedAt
        self.user = user
    }
}

/// Where the client keeps ``StoredTokens``: ``KeychainTokenStore`` in an app,
/// ``FileTokenStore`` for a command-line tool or a Linux program, ``InMemoryTokenStore`` when
/// nothing may outlive the process.
///
/// The client calls a store from one task at a time.
public protocol TokenStore: Sendable {
    /// The stored tokens, or nil when there are none.
    func load() async throws -> StoredTokens?
    /// Replaces whatever is stored.
    func save(_ tokens: StoredTokens) async throws
    /// Removes the stored tokens; no error when there were none.
    func clear() async throws
}

/// A ``TokenStore`` that forgets everything when the process ends.
public typealias InMemoryTokenStore = InMemoryStore<StoredTokens>

/// A ``TokenStore`` in one JSON file that only its owner can read (mode 0600), replaced
/// atomically on every save, so a crash leaves the old pair or the new one, never half of one.
public typealias FileTokenStore = FileStore<StoredTokens>

extension InMemoryStore: TokenStore where Value == StoredTokens {}
extension FileStore: TokenStore where Value == StoredTokens {}
