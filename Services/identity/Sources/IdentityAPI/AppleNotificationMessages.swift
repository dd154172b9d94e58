import FoundationEssentials

/// `identity.appleNotification` params: Apple's body as it came, `{"payload":"<JWS>"}`.
public struct AppleNotificationParams: Sendable, Codable, Equatable {
    public var payload: String

    public init(payload: String) {
        self.payload = payload
    }
}

/// What became of a notification (the `outcome` label of its metric).
public enum AppleNotificationOutcome: String, Sendable, Codable {
    /// Applied now.
    case applied
    /// Its `jti` was applied before: nothing changed (a follow-up still pending is handed out again).
    case repeated
    /// No Apple identity has its `sub`: nothing changed.
    case unknownSubject = "unknown_subject"
    /// An event type this service does not know: nothing changed.
    case unknownType = "unknown_type"
}

/// What the caller still has to do for an applied notification, then confirm with
/// `identity.completeAppleNotification`.
public enum AppleNotificationFollowUp: String, Sendable, Codable {
    case none
    /// Revoke every session of `user_id` (`tokens.revokeAll`).
    case revokeSessions = "revoke_sessions"
    /// The user is deleted in identity: delete the rest of the account as an account deletion
    /// does (`tokens.revokeUser` with `deleted`, `content.user.delete`).
    case deleteAccount = "delete_account"
}

/// `identity.appleNotification` result.
public struct AppleNotificationResult: Sendable, Codable, Equatable {
    /// The notification's `jti`.
    public var jti: String
    /// The event type (`consent-revoked`, `account-delete`, `email-disabled`, `email-enabled`,
    /// or `unknown`).
    public var type: String
    public var outcome: AppleNotificationOutcome
    public var followUp: AppleNotificationFollowUp
    /// The user the notification concerned, when there is one.
    public var userID: UUID?

    enum CodingKeys: String, CodingKey {
        case jti, type, outcome
        case followUp = "follow_up"
        case userID = "user_id"
    }

    public init(jti: String, type: String, outcome: AppleNotificationOutcome, followUp: AppleNotificationFollowUp, userID: UUID?) {
        self.jti = jti
        self.type = type
        self.outcome = outcome
        self.followUp = followUp
        self.userID = userID
    }
}

/// `identity.completeAppleNotification` params: the `jti` whose follow-up the caller did.
public struct CompleteAppleNotificationParams: Sendable, Codable, Equatable {
    public var jti: String

    public init(jti: String) {
        self.jti = jti
    }
}
