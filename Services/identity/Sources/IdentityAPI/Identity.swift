import AuditAPI
import ServiceProtocol

/// Every method of identity (docs/protocol.md, "identity methods"): the service registers its
/// handlers through these, and callers (the gateway, other services, the operator CLI, tests
/// and benchmarks) call through them.
public enum Identity {
    public static let signIn = RPCMethod<ProviderCredential, SignInResult>("identity.signIn")
    /// Makes a guest user (`is_guest`, no providers; DESIGN.md section 9.1).
    public static let createGuest = RPCMethod<Empty, User>("identity.createGuest")
    /// A sign-in that carried a guest's access token: upgrades the guest in place, or names the
    /// user its state merges into. `user_id` of the params is the guest's.
    public static let signInGuest = RPCMethod<LinkParams, GuestSignInResult>("identity.signInGuest")
    public static let link = RPCMethod<LinkParams, User>("identity.link")
    public static let unlink = RPCMethod<UnlinkParams, User>("identity.unlink")
    public static let getUser = RPCMethod<UserIDParams, User>("identity.getUser")
    public static let listUsers = RPCMethod<ListUsersParams, ListUsersResult>("identity.listUsers")
    public static let setActive = RPCMethod<SetActiveParams, User>("identity.setActive")
    /// Grants or takes back the admin role (`is_admin`, the `adm` claim of access tokens issued later).
    public static let setAdmin = RPCMethod<SetAdminParams, User>("identity.setAdmin")
    /// Deletes the user; `by` says who asked, for the audit trail (`merged` with `merged_into`
    /// for a guest whose state went into another account).
    public static let deleteUser = RPCMethod<DeleteUserParams, DeleteUserResult>("identity.deleteUser")
    /// Deletes the user only while it is a guest (`deleted` false for a user who is not one,
    /// `not_found` for none): the guest reaper's, which must never delete an upgraded account.
    public static let deleteGuest = RPCMethod<DeleteUserParams, DeleteUserResult>("identity.deleteGuest")
    /// Verifies and applies a Sign in with Apple server-to-server notification, once per `jti`.
    public static let appleNotification = RPCMethod<AppleNotificationParams, AppleNotificationResult>("identity.appleNotification")
    /// Confirms that the caller did an applied notification's follow-up.
    public static let completeAppleNotification = RPCMethod<CompleteAppleNotificationParams, Empty>(
        "identity.completeAppleNotification")
    /// A page of identity's audit trail, newest first (DESIGN.md section 9.3).
    public static let auditList = RPCMethod<AuditListParams, AuditPage>("identity.audit.list")
    /// Records an event of a caller without a store of its own (the gateway's admin logins);
    /// idempotent: the event's `id` records it once however often it is sent.
    public static let auditRecord = RPCMethod<AuditRecordParams, Empty>("identity.audit.record")
    /// The user lifecycle feed (DESIGN.md section 9.4), in commit order from `since`.
    public static let eventsRead = RPCMethod<EventsReadParams, EventsPage>("identity.events.read")
    /// Appends `sessions.revoked` for a revocation `tokens` made (every session of the user):
    /// the gateway calls it after `tokens.revokeAll` / `tokens.revokeUser`; idempotent by `id`.
    public static let eventsSessionsRevoked = RPCMethod<SessionsRevokedParams, Empty>("identity.events.sessionsRevoked")

    /// Every method's name, for a check against the registered router and the docs.
    public static let methodNames: [String] = [
        signIn.name, createGuest.name, signInGuest.name, link.name, unlink.name, getUser.name, listUsers.name, setActive.name, setAdmin.name, deleteUser.name, deleteGuest.name,
        appleNotification.name, completeAppleNotification.name, auditList.name, auditRecord.name,
        eventsRead.name, eventsSessionsRevoked.name,
    ]
}
