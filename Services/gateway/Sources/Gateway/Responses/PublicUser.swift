import IdentityAPI
import TextCoding

/// A user as the public API shows it (DESIGN.md section 6): identity's `User` without
/// `is_active` and the linked identities, which only the admin surface shows (it sends
/// identity's `User` as it is).
struct PublicUser: Encodable {
    var user: User

    private enum CodingKeys: String, CodingKey {
        case id, email, providers
        case emailVerified = "email_verified"
        case displayName = "display_name"
        case isAdmin = "is_admin"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.user.id.lowercasedText, forKey: .id)
        try container.encode(self.user.email, forKey: .email)
        try container.encode(self.user.emailVerified, forKey: .emailVerified)
        try container.encode(self.user.displayName, forKey: .displayName)
        try container.encode(self.user.isAdmin, forKey: .isAdmin)
        try container.encode(self.user.providers, forKey: .providers)
        try container.encodeTimestamp(self.user.createdAt, forKey: .createdAt)
        try container.encodeTimestamp(self.user.updatedAt, forKey: .updatedAt)
    }
}
