import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import ServiceProtocol

/// The pooled RPC clients of the three backends, and the calls the routes make. Every call
/// carries the request id; reads and calls the backends document as idempotent are marked so,
/// so the client may retry them on another replica.
struct Backends: Sendable {
    let identity: RPCClient
    let tokens: RPCClient
    let contentState: RPCClient

    init(configuration: GatewayConfiguration, logger: Logger) {
        func client(_ service: String, _ endpoints: [RPCEndpoint]) -> RPCClient {
            RPCClient(
                configuration: .init(
                    endpoints: endpoints, serviceName: service, callerName: GatewayApp.name,
                    serviceToken: configuration.common.serviceToken),
                logger: logger)
        }
        self.identity = client("identity", configuration.identityEndpoints)
        self.tokens = client("tokens", configuration.tokensEndpoints)
        self.contentState = client("content-state", configuration.contentStateEndpoints)
    }

    var all: [any Service] { [self.identity, self.tokens, self.contentState] }

    static func options(_ context: GatewayRequestContext, idempotent: Bool) -> RPCClient.CallOptions {
        RPCClient.CallOptions(idempotent: idempotent, requestID: context.requestID)
    }
}

// MARK: - Shapes of backend results the gateway reshapes

/// A user as the public API shows it (DESIGN.md section 6); read from identity's user.
struct PublicUser: Codable, Sendable {
    var id: String
    var email: String?
    var emailVerified: Bool
    var displayName: String?
    var isAdmin: Bool
    var providers: [String]
    var createdAt: String
    var updatedAt: String
    /// Not in the public user; the admin surface shows it.
    var isActive: Bool

    enum CodingKeys: String, CodingKey {
        case id, email, providers
        case emailVerified = "email_verified"
        case displayName = "display_name"
        case isAdmin = "is_admin"
        case isActive = "is_active"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(String.self, forKey: .id).lowercased()
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.emailVerified = try container.decode(Bool.self, forKey: .emailVerified)
        self.displayName = try container.decodeIfPresent(String.self, forKey: .displayName)
        self.isAdmin = try container.decode(Bool.self, forKey: .isAdmin)
        self.providers = try container.decode([String].self, forKey: .providers)
        self.createdAt = try container.decode(String.self, forKey: .createdAt)
        self.updatedAt = try container.decode(String.self, forKey: .updatedAt)
        self.isActive = try container.decodeIfPresent(Bool.self, forKey: .isActive) ?? true
    }

    /// The public shape: without `is_active` unless `includeActive` (admin).
    struct Public: Encodable {
        var user: PublicUser
        var includeActive = false

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.user.id, forKey: .id)
            try container.encode(self.user.email, forKey: .email)
            try container.encode(self.user.emailVerified, forKey: .emailVerified)
            try container.encode(self.user.displayName, forKey: .displayName)
            try container.encode(self.user.isAdmin, forKey: .isAdmin)
            try container.encode(self.user.providers, forKey: .providers)
            try container.encode(self.user.createdAt, forKey: .createdAt)
            try container.encode(self.user.updatedAt, forKey: .updatedAt)
            if self.includeActive { try container.encode(self.user.isActive, forKey: .isActive) }
        }
    }

    func encode(to encoder: any Encoder) throws {
        try Public(user: self).encode(to: encoder)
    }
}

/// `identity.signIn`'s result.
struct SignInResult: Decodable, Sendable {
    var user: PublicUser
    var isNewUser: Bool

    enum CodingKeys: String, CodingKey {
        case user
        case isNewUser = "is_new_user"
    }
}

/// The token pair of `tokens.issue` and `tokens.refresh`.
struct TokenPair: Decodable, Sendable {
    var accessToken: String
    var expiresIn: Int
    /// The access token's `exp` and the session's end, RFC 3339 (passed through as tokens wrote them).
    var expiresAt: String
    var refreshExpiresAt: String
    var refreshToken: String
    var sessionID: String
    var userID: String

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshExpiresAt = "refresh_expires_at"
        case refreshToken = "refresh_token"
        case sessionID = "session_id"
        case userID = "user_id"
    }
}

/// The public token response (sign-in and refresh); `response()` sends it uncacheable.
struct TokenResponse: Encodable {
    var pair: TokenPair
    var user: PublicUser
    var isNewUser: Bool?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case expiresAt = "expires_at"
        case refreshToken = "refresh_token"
        case refreshExpiresAt = "refresh_expires_at"
        case user
        case isNewUser = "is_new_user"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.pair.accessToken, forKey: .accessToken)
        try container.encode("Bearer", forKey: .tokenType)
        try container.encode(self.pair.expiresIn, forKey: .expiresIn)
        try container.encode(self.pair.expiresAt, forKey: .expiresAt)
        try container.encode(self.pair.refreshToken, forKey: .refreshToken)
        try container.encode(self.pair.refreshExpiresAt, forKey: .refreshExpiresAt)
        try container.encode(self.user, forKey: .user)
        try container.encodeIfPresent(self.isNewUser, forKey: .isNewUser)
    }

    /// The 200 response: tokens must not be kept by any cache (RFC 6749 section 5.1).
    func response() throws -> Response {
        var response = try jsonResponse(self)
        response.headers[.cacheControl] = "no-store"
        response.headers[.pragma] = "no-cache"
        return response
    }
}

extension HTTPField.Name {
    static let pragma = Self("Pragma")!
}

/// One session of `tokens.listSessions`, with `current` added by the gateway.
struct SessionEntry: Codable, Sendable {
    var id: String
    var deviceName: String?
    var createdAt: String
    var lastUsedAt: String
    var expiresAt: String
    var current: Bool?

    enum CodingKeys: String, CodingKey {
        case id, current
        case deviceName = "device_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.id.lowercased(), forKey: .id)
        try container.encode(self.deviceName, forKey: .deviceName)
        try container.encode(self.createdAt, forKey: .createdAt)
        try container.encode(self.lastUsedAt, forKey: .lastUsedAt)
        try container.encode(self.expiresAt, forKey: .expiresAt)
        try container.encode(self.current ?? false, forKey: .current)
    }
}

struct SessionList: Codable, Sendable {
    var sessions: [SessionEntry]
}

/// Results the gateway only needs to have succeeded.
struct Ignored: Decodable, Sendable {}
