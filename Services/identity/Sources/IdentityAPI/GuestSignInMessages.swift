import FoundationEssentials

/// What a guest's sign-in did (DESIGN.md section 9.1).
public enum GuestSignInOutcome: String, Sendable, Codable, Equatable {
    /// The identity was unknown: the guest became its user (same id, `is_guest` false). Also
    /// the answer to a repeat, when the identity already belongs to that former guest.
    case upgraded
    /// The identity belongs (or was auto-linked by email) to another user, `user`: the caller
    /// merges the guest's state into it, then deletes the guest.
    case merge
}

/// `identity.signInGuest` result: the user to open a session for, and what to do with the guest.
public struct GuestSignInResult: Sendable, Codable, Equatable {
    public var user: User
    public var outcome: GuestSignInOutcome

    public init(user: User, outcome: GuestSignInOutcome) {
        self.user = user
        self.outcome = outcome
    }
}
