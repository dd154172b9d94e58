/// Whether the client has a session, as ``LatchkeyClient/authStates()`` reports it.
public enum AuthState: Sendable, Hashable {
    case signedIn(User)
    case signedOut(SignOutReason)

    /// The signed-in user, or nil when signed out.
    public var user: User? {
        if case .signedIn(let user) = self { return user }
        return nil
    }
}

/// Why the client is signed out: the app words its screen after it.
public enum SignOutReason: Sendable, Hashable {
    /// No session was stored: the first launch, or the last session ended before this launch.
    case notSignedIn
    /// The app called ``LatchkeyClient/signOut(_:)`` here.
    case signedOut
    /// The app deleted the account with ``LatchkeyClient/deleteAccount()``.
    case accountDeleted
    /// The gateway said the session was revoked (`session_revoked`): a logout on another
    /// device, "log out everywhere", an administrator, or the account deleted elsewhere.
    case sessionRevoked
    /// The gateway refused to refresh the session (`invalid_refresh_token`,
    /// `refresh_token_reused`, an expired session, a deactivated account).
    case refreshRejected
}

/// How far ``LatchkeyClient/signOut(_:)`` reaches.
public enum SignOutScope: String, Sendable, Hashable {
    /// This device's session only (`local`).
    case thisDevice = "local"
    /// Every other session of the user; this device stays signed in (`others`).
    case otherDevices = "others"
    /// Every session of the user, this one included (`global`).
    case everywhere = "global"
}
