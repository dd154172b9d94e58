import AuditAPI
import FoundationEssentials
import IdentityAPI

/// Where identity keeps its audit trail (DESIGN.md section 9.3).
enum IdentityAudit {
    static let table = "identity.audit_events"
}

/// Why a user is deleted, as the audit trail records it.
enum DeletionReason: Sendable, Equatable {
    case user, admin, apple, guestExpired
    case mergedInto(UUID)

    init(_ params: DeleteUserParams) {
        switch params.by {
        case .admin: self = .admin
        case .apple: self = .apple
        case .guestExpired: self = .guestExpired
        case .merged: self = params.mergedInto.map { .mergedInto($0) } ?? .user
        case .user, nil: self = .user
        }
    }

    /// `by` of the `account_deleted` event.
    var by: String {
        switch self {
        case .user: "user"
        case .admin: "admin"
        case .apple: "apple"
        case .guestExpired: "guest_ttl"
        case .mergedInto: "merged"
        }
    }
}
