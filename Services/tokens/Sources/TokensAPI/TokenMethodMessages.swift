import FoundationEssentials

/// `tokens.issue` parameters: a new session for a user who just signed in.
public struct IssueParams: Codable, Sendable, Equatable {
    public var userID: UUID
    public var isAdmin: Bool?
    public var deviceName: String?
    /// The RFC 7638 thumbprint of the device's key, from a DPoP proof the gateway verified: the
    /// session is bound to it (DESIGN.md section 9.2). Nil: an unbound (bearer) session.
    public var dpopJKT: String?
    /// The sign-in this session is for, recorded as the audit trail's `sign_in` with the
    /// session; absent for a session that is no sign-in (a guest's first).
    public var signIn: SignInFacts?

    public init(
        userID: UUID, isAdmin: Bool = false, deviceName: String? = nil, dpopJKT: String? = nil, signIn: SignInFacts? = nil
    ) {
        self.userID = userID
        self.isAdmin = isAdmin
        self.deviceName = deviceName
        self.dpopJKT = dpopJKT
        self.signIn = signIn
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case isAdmin = "is_admin"
        case deviceName = "device_name"
        case dpopJKT = "dpop_jkt"
        case signIn = "sign_in"
    }
}

/// What the audit trail says of a sign-in: the provider, and whether it made the user.
public struct SignInFacts: Codable, Sendable, Equatable {
    public var provider: String
    public var newUser: Bool

    enum CodingKeys: String, CodingKey {
        case provider
        case newUser = "new_user"
    }

    public init(provider: String, newUser: Bool) {
        self.provider = provider
        self.newUser = newUser
    }
}

/// What a revocation asked by a caller is, for the audit trail: a `logout` (the default), the
/// user ending one of their sessions from the list (`session_revoked`), or an operator
/// (`sessions_revoked_by_admin`).
public enum RevocationCause: String, Codable, Sendable {
    case logout
    case user
    case admin
}

/// `tokens.refresh` parameters.
public struct RefreshParams: Codable, Sendable, Hashable {
    public var refreshToken: String
    /// The thumbprint of the key of the DPoP proof the refresh came with, verified by the
    /// gateway; a bound session's refresh is refused without its own key's.
    public var dpopJKT: String?

    public init(refreshToken: String, dpopJKT: String? = nil) {
        self.refreshToken = refreshToken
        self.dpopJKT = dpopJKT
    }

    enum CodingKeys: String, CodingKey {
        case refreshToken = "refresh_token"
        case dpopJKT = "dpop_jkt"
    }
}

/// `tokens.revoke` parameters: one session, which must be the user's.
public struct RevokeParams: Codable, Sendable {
    public var userID: UUID
    public var sessionID: UUID
    public var cause: RevocationCause?

    public init(userID: UUID, sessionID: UUID, cause: RevocationCause? = nil) {
        self.userID = userID
        self.sessionID = sessionID
        self.cause = cause
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case sessionID = "session_id"
        case cause
    }
}

/// `tokens.revoke` result: false when the session was already revoked.
public struct RevokeResult: Codable, Sendable {
    public var revoked: Bool

    public init(revoked: Bool) {
        self.revoked = revoked
    }
}

/// `tokens.revokeAll` parameters: every session of the user, optionally but one.
public struct RevokeAllParams: Codable, Sendable {
    public var userID: UUID
    public var exceptSessionID: UUID?
    public var cause: RevocationCause?

    public init(userID: UUID, exceptSessionID: UUID? = nil, cause: RevocationCause? = nil) {
        self.userID = userID
        self.exceptSessionID = exceptSessionID
        self.cause = cause
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case exceptSessionID = "except_session_id"
        case cause
    }
}

/// `tokens.revokeAll` result: how many sessions were revoked by this call.
public struct RevokeAllResult: Codable, Sendable {
    public var revokedSessions: Int

    enum CodingKeys: String, CodingKey {
        case revokedSessions = "revoked_sessions"
    }

    public init(revokedSessions: Int) {
        self.revokedSessions = revokedSessions
    }
}

/// Why every token of a user dies (`tokens.revokeUser`).
public enum UserRevocationReason: String, Codable, Sendable {
    case deactivated
    case deleted
    /// A guest whose state merged into another account (DESIGN.md section 9.1).
    case merged
}

/// `tokens.revokeUser` parameters: deactivation or deletion.
public struct RevokeUserParams: Codable, Sendable {
    public var userID: UUID
    public var reason: UserRevocationReason

    public init(userID: UUID, reason: UserRevocationReason) {
        self.userID = userID
        self.reason = reason
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case reason
    }
}

/// `tokens.revokeUser` result.
public struct RevokeUserResult: Codable, Sendable {
    public var revokedSessions: Int
    /// Access tokens of the user with `iat` before this (Unix seconds, with milliseconds) are refused.
    public var notBefore: Double

    enum CodingKeys: String, CodingKey {
        case revokedSessions = "revoked_sessions"
        case notBefore = "not_before"
    }

    public init(revokedSessions: Int, notBefore: Double) {
        self.revokedSessions = revokedSessions
        self.notBefore = notBefore
    }
}

/// `tokens.listSessions` parameters.
public struct ListSessionsParams: Codable, Sendable {
    public var userID: UUID

    public init(userID: UUID) {
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
    }
}

/// One live session of a user.
public struct SessionSummary: Codable, Sendable, Hashable {
    public var id: UUID
    public var deviceName: String?
    public var createdAt: String
    public var lastUsedAt: String
    public var expiresAt: String
    /// Bound to a device's key (DPoP).
    public var bound: Bool

    enum CodingKeys: String, CodingKey {
        case id
        case deviceName = "device_name"
        case createdAt = "created_at"
        case lastUsedAt = "last_used_at"
        case expiresAt = "expires_at"
        case bound
    }

    public init(id: UUID, deviceName: String?, createdAt: String, lastUsedAt: String, expiresAt: String, bound: Bool = false) {
        self.id = id
        self.deviceName = deviceName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.expiresAt = expiresAt
        self.bound = bound
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.id = try container.decode(UUID.self, forKey: .id)
        self.deviceName = try container.decodeIfPresent(String.self, forKey: .deviceName)
        self.createdAt = try container.decode(String.self, forKey: .createdAt)
        self.lastUsedAt = try container.decode(String.self, forKey: .lastUsedAt)
        self.expiresAt = try container.decode(String.self, forKey: .expiresAt)
        // A replica that predates binding sends none: its sessions are unbound.
        self.bound = try container.decodeIfPresent(Bool.self, forKey: .bound) ?? false
    }
}

/// `tokens.listSessions` result: live sessions, most recently used first.
public struct SessionList: Codable, Sendable {
    public var sessions: [SessionSummary]

    public init(sessions: [SessionSummary]) {
        self.sessions = sessions
    }
}

/// `tokens.verify` parameters.
public struct VerifyParams: Codable, Sendable {
    public var accessToken: String

    public init(accessToken: String) {
        self.accessToken = accessToken
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
    }
}

/// `tokens.verify` result: the claims of a valid, unrevoked access token.
public struct VerifiedAccessToken: Codable, Sendable, Hashable {
    public var userID: UUID
    public var sessionID: UUID
    public var isAdmin: Bool
    /// Unix seconds.
    public var issuedAt: Int
    public var expiresAt: Int
    public var tokenID: String
    /// The key thumbprint a bound token carries (`cnf.jkt`): a caller that accepts the token
    /// from a client must check a DPoP proof by that key (DESIGN.md section 9.2).
    public var dpopJKT: String?

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case sessionID = "session_id"
        case isAdmin = "is_admin"
        case issuedAt = "issued_at"
        case expiresAt = "expires_at"
        case tokenID = "jti"
        case dpopJKT = "dpop_jkt"
    }

    public init(
        userID: UUID, sessionID: UUID, isAdmin: Bool, issuedAt: Int, expiresAt: Int, tokenID: String, dpopJKT: String? = nil
    ) {
        self.userID = userID
        self.sessionID = sessionID
        self.isAdmin = isAdmin
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.tokenID = tokenID
        self.dpopJKT = dpopJKT
    }
}
