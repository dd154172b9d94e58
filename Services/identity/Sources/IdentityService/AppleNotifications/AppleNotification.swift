import FoundationEssentials

/// A verified Sign in with Apple server-to-server notification: which event, for which Apple
/// account (`subject`), under which `jti` (each is applied once).
struct AppleNotification: Sendable, Equatable {
    var tokenID: String
    var kind: AppleNotificationKind
    var subject: String
    var eventTime: Date?
}

/// Apple's event types. Apple's documentation spells account deletion `account-deleted` while
/// its servers have sent `account-delete`: both are read as one.
enum AppleNotificationKind: Sendable, Equatable {
    /// The person stopped using Sign in with Apple with this app: every session ends.
    case consentRevoked
    /// The Apple account was deleted: the identity goes, and the user with it if it was the last.
    case accountDeleted
    /// The private relay address stopped (`false`) or resumed (`true`) forwarding email.
    case emailForwarding(Bool)
    /// A type this service does not know; answered and counted, nothing changes.
    case unknown(String)

    init(type: String) {
        switch type {
        case "consent-revoked": self = .consentRevoked
        case "account-delete", "account-deleted": self = .accountDeleted
        case "email-disabled": self = .emailForwarding(false)
        case "email-enabled": self = .emailForwarding(true)
        default: self = .unknown(type)
        }
    }

    /// The label metrics and logs use; bounded (an unknown type is `unknown`).
    var label: String {
        switch self {
        case .consentRevoked: "consent-revoked"
        case .accountDeleted: "account-delete"
        case .emailForwarding(false): "email-disabled"
        case .emailForwarding(true): "email-enabled"
        case .unknown: "unknown"
        }
    }
}
