/// `GET /admin/api/users/{id}`: the user as the admin list shows it, plus every linked identity
/// as identity's `identity.getUser` describes it (docs/protocol.md; Apple's `email_forwarding`
/// among its members), passed through unchanged.
struct AdminUserDetail: Codable, Sendable {
    var user: PublicUser
    var identities: [JSONValue]

    private enum CodingKeys: String, CodingKey {
        case identities
    }

    init(from decoder: any Decoder) throws {
        self.user = try PublicUser(from: decoder)
        self.identities = try decoder.container(keyedBy: CodingKeys.self).decode([JSONValue].self, forKey: .identities)
    }

    func encode(to encoder: any Encoder) throws {
        try PublicUser.Public(user: self.user, includeActive: true).encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(self.identities, forKey: .identities)
    }
}
