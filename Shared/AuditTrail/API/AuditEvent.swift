import FoundationEssentials

/// The security events of the audit trail (DESIGN.md section 9.3).
public enum AuditEventType: String, Codable, Sendable, CaseIterable {
    case signIn = "sign_in"
    case guestCreated = "guest_created"
    case guestUpgraded = "guest_upgraded"
    case guestMerged = "guest_merged"
    case refreshReuseDetected = "refresh_reuse_detected"
    case sessionRevoked = "session_revoked"
    case logout
    case identityLinked = "identity_linked"
    case identityUnlinked = "identity_unlinked"
    case accountDeleted = "account_deleted"
    case appleNotification = "apple_notification"
    case userDeactivated = "user_deactivated"
    case userActivated = "user_activated"
    case sessionsRevokedByAdmin = "sessions_revoked_by_admin"
    case adminLogin = "admin_login"
    case adminLoginFailed = "admin_login_failed"
}

/// Bounds of what an event keeps.
public enum AuditTrailLimits {
    /// A longer user agent is cut (at this many characters): it is for people to recognise a device.
    public static let userAgentLength = 256
}

/// One value of an event's `details`: never a token or a secret, only facts about the event.
public enum AuditValue: Codable, Sendable, Equatable {
    case string(String)
    case int(Int)
    case bool(Bool)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let int = try? container.decode(Int.self) {
            self = .int(int)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        }
    }
}

/// One recorded event as the trail answers it: when, whose, from where, and what.
public struct AuditEvent: Codable, Sendable, Equatable {
    public var id: UUID
    public var type: String
    /// RFC 3339, microseconds.
    public var occurredAt: String
    public var userID: UUID?
    public var sessionID: UUID?
    public var ip: String?
    public var userAgent: String?
    public var requestID: String?
    public var details: [String: AuditValue]

    enum CodingKeys: String, CodingKey {
        case id, type, ip, details
        case occurredAt = "occurred_at"
        case userID = "user_id"
        case sessionID = "session_id"
        case userAgent = "user_agent"
        case requestID = "request_id"
    }

    public init(
        id: UUID, type: String, occurredAt: String, userID: UUID?, sessionID: UUID?, ip: String?, userAgent: String?,
        requestID: String?, details: [String: AuditValue]
    ) {
        self.id = id
        self.type = type
        self.occurredAt = occurredAt
        self.userID = userID
        self.sessionID = sessionID
        self.ip = ip
        self.userAgent = userAgent
        self.requestID = requestID
        self.details = details
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        // Ids in lower case, as the public API writes every id.
        try container.encode(self.id.uuidString.lowercased(), forKey: .id)
        try container.encode(self.type, forKey: .type)
        try container.encode(self.occurredAt, forKey: .occurredAt)
        try container.encode(self.userID?.uuidString.lowercased(), forKey: .userID)
        try container.encode(self.sessionID?.uuidString.lowercased(), forKey: .sessionID)
        try container.encode(self.ip, forKey: .ip)
        try container.encode(self.userAgent, forKey: .userAgent)
        try container.encode(self.requestID, forKey: .requestID)
        try container.encode(self.details, forKey: .details)
    }
}
