import AccountAdministration
import ContentStateAPI
import FoundationEssentials
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// `GET /admin/api/users/{id}`: what the admin console shows of one user, asked of the three
/// backends in parallel: the user with `is_active` and its identities (identity), its open
/// sessions (tokens) and how many favorites, read marks and unlikes it has (content-state).
struct AdminUserOverview: Encodable, Sendable {
    var user: User
    var sessions: [SessionSummary]
    var counts: UserContentCounts

    private enum CodingKeys: String, CodingKey {
        case sessions, counts
    }

    /// A user that does not exist is identity's `not_found`.
    static func load(_ userID: UUID, from accounts: AccountAdministration, requestID: String?) async throws -> AdminUserOverview {
        let options = RPCClient.CallOptions(idempotent: true, requestID: requestID)
        async let user = accounts.user(userID, requestID: requestID)
        async let sessions = accounts.tokens.call(Tokens.listSessions, ListSessionsParams(userID: userID), options: options)
        async let counts = accounts.contentState.call(ContentState.userCounts, UserParams(userID: userID), options: options)
        return AdminUserOverview(user: try await user, sessions: try await sessions.sessions, counts: try await counts)
    }

    func encode(to encoder: any Encoder) throws {
        try self.user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.sessions.map { PublicSessions.Session(summary: $0, current: nil) }, forKey: .sessions)
        try container.encode(self.counts, forKey: .counts)
    }
}
