import FoundationEssentials
import TextCoding
import TokensAPI

/// `GET /api/v1/auth/sessions`: the live sessions `tokens.listSessions` returns, each marked
/// `current` when it is the caller's (the admin's user page shows them without `current`).
struct PublicSessions: Encodable {
    var sessions: [Session]

    init(_ list: SessionList, current: UUID) {
        self.sessions = list.sessions.map { Session(summary: $0, current: $0.id == current) }
    }

    struct Session: Encodable {
        var summary: SessionSummary
        /// Nil where there is no caller's session to compare with (the admin API): left out.
        var current: Bool?

        private enum CodingKeys: String, CodingKey {
            case id, current
            case deviceName = "device_name"
            case createdAt = "created_at"
            case lastUsedAt = "last_used_at"
            case expiresAt = "expires_at"
            case bound
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.summary.id.lowercasedText, forKey: .id)
            try container.encode(self.summary.deviceName, forKey: .deviceName)
            try container.encode(self.summary.createdAt, forKey: .createdAt)
            try container.encode(self.summary.lastUsedAt, forKey: .lastUsedAt)
            try container.encode(self.summary.expiresAt, forKey: .expiresAt)
            try container.encode(self.summary.bound, forKey: .bound)
            try container.encodeIfPresent(self.current, forKey: .current)
        }
    }
}
