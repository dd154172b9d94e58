import IdentityAPI
import ServiceProtocol
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
        case isGuest = "is_guest"
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
        try container.encode(self.user.isGuest, forKey: .isGuest)
        try container.encode(self.user.providers, forKey: .providers)
        try container.encodeTimestamp(self.user.createdAt, forKey: .createdAt)
        try container.encodeTimestamp(self.user.updatedAt, forKey: .updatedAt)
    }

    /// The same JSON `encode(to:)` gives, written by hand: `GET /auth/me`, sign-in and refresh
    /// answer with it, and the coder's cost per member was a twentieth of the gateway's work on
    /// a refresh.
    var rawJSON: RawJSON {
        var json = RawJSON(capacity: 320)
        self.write(to: &json)
        return json
    }

    func write(to json: inout RawJSON) {
        json.append(#"{"id":"#)
        json.append(string: self.user.id.lowercasedText)
        json.append(#","email":"#)
        json.append(string: self.user.email)
        json.append(#","email_verified":"#)
        json.append(bool: self.user.emailVerified)
        json.append(#","display_name":"#)
        json.append(string: self.user.displayName)
        json.append(#","is_admin":"#)
        json.append(bool: self.user.isAdmin)
        json.append(#","is_guest":"#)
        json.append(bool: self.user.isGuest)
        json.append(#","providers":["#)
        for (index, provider) in self.user.providers.enumerated() {
            if index > 0 { json.append(",") }
            json.append(string: provider.rawValue)
        }
        json.append(#"],"created_at":"#)
        json.append(string: RFC3339.format(self.user.createdAt))
        json.append(#","updated_at":"#)
        json.append(string: RFC3339.format(self.user.updatedAt))
        json.append("}")
    }
}
