import CompactJSON
import FoundationEssentials
import ServiceProtocol
import TextCoding

/// A user as identity sends one (every sign-in's answer, and the gateway's reads of a user),
/// written and read by hand. The reader takes the user without `identities` (a `null` is the
/// same); a user with them (the admin's `identity.getUser`), or any other spelling, is left to
/// `Codable`, which answers it.
extension User: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var id: UUID?
        var email: String?
        var emailVerified: Bool?
        var displayName: String?
        var isAdmin: Bool?
        var isActive: Bool?
        var isGuest = false
        var providers: [IdentityProvider]?
        var createdAt: Date?
        var updatedAt: Date?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.id.stringValue: id = try parser.readUUID()
            case CodingKeys.email.stringValue: email = try parser.readStringOrNull()
            case CodingKeys.emailVerified.stringValue: emailVerified = try parser.readBool()
            case CodingKeys.displayName.stringValue: displayName = try parser.readStringOrNull()
            case CodingKeys.isAdmin.stringValue: isAdmin = try parser.readBool()
            case CodingKeys.isActive.stringValue: isActive = try parser.readBool()
            case CodingKeys.isGuest.stringValue: isGuest = try parser.readBool()
            case CodingKeys.providers.stringValue:
                providers = try parser.readStringArray().map { name in
                    guard let provider = IdentityProvider(rawValue: name) else { throw CompactJSON.Unsupported() }
                    return provider
                }
            case CodingKeys.createdAt.stringValue: createdAt = try Self.readTime(&parser)
            case CodingKeys.updatedAt.stringValue: updatedAt = try Self.readTime(&parser)
            case CodingKeys.identities.stringValue: guard try parser.readNull() else { throw CompactJSON.Unsupported() }
            default: try parser.skipValue()
            }
        }
        guard let id, let emailVerified, let isAdmin, let isActive, let providers, let createdAt, let updatedAt else {
            throw CompactJSON.Unsupported()
        }
        self.init(
            id: id, email: email, emailVerified: emailVerified, displayName: displayName, isAdmin: isAdmin, isActive: isActive,
            isGuest: isGuest, providers: providers, createdAt: createdAt, updatedAt: updatedAt)
    }

    /// A time as `decodeTimestamp` reads it.
    static func readTime(_ parser: inout CompactJSONParser) throws -> Date {
        guard let time = RFC3339.parse(try parser.readString()) else { throw CompactJSON.Unsupported() }
        return time
    }

    /// The members `encode(to:)` writes, in its order.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"id":"#)
        JSONString.write(self.id.lowercasedText, escapingSlashes: escapingSlashes, to: &json)
        json.write(#","email":"#)
        JSONString.writeOrNull(self.email, escapingSlashes: escapingSlashes, to: &json)
        json.write(#","email_verified":"#)
        json.write(bool: self.emailVerified)
        json.write(#","display_name":"#)
        JSONString.writeOrNull(self.displayName, escapingSlashes: escapingSlashes, to: &json)
        json.write(#","is_admin":"#)
        json.write(bool: self.isAdmin)
        json.write(#","is_active":"#)
        json.write(bool: self.isActive)
        json.write(#","is_guest":"#)
        json.write(bool: self.isGuest)
        json.write(#","providers":["#)
        for (index, provider) in self.providers.enumerated() {
            if index > 0 { json.write(",") }
            JSONString.write(provider.rawValue, escapingSlashes: escapingSlashes, to: &json)
        }
        json.write(#"],"created_at":"#)
        RFC3339.writeJSON(self.createdAt, to: &json)
        json.write(#","updated_at":"#)
        RFC3339.writeJSON(self.updatedAt, to: &json)
        if let identities = self.identities {
            json.write(#","identities":["#)
            for (index, identity) in identities.enumerated() {
                if index > 0 { json.write(",") }
                identity.write(to: &json, escapingSlashes: escapingSlashes)
            }
            json.write("]")
        }
        json.write("}")
    }
}

extension LinkedIdentity: CompactJSONWritable {
    /// The members `encode(to:)` writes, in its order: the admin's users carry them.
    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"provider":"#)
        JSONString.write(self.provider.rawValue, escapingSlashes: escapingSlashes, to: &json)
        json.write(#","subject":"#)
        JSONString.write(self.subject, escapingSlashes: escapingSlashes, to: &json)
        json.write(#","email":"#)
        JSONString.writeOrNull(self.email, escapingSlashes: escapingSlashes, to: &json)
        json.write(#","email_verified":"#)
        json.write(bool: self.emailVerified)
        json.write(#","is_private_email":"#)
        json.write(bool: self.isPrivateEmail)
        json.write(#","email_forwarding":"#)
        json.write(bool: self.emailForwarding)
        json.write(#","created_at":"#)
        RFC3339.writeJSON(self.createdAt, to: &json)
        json.write(#","last_sign_in_at":"#)
        RFC3339.writeJSON(self.lastSignInAt, to: &json)
        json.write("}")
    }
}

/// A sign-in's answer: the user and whether identity just created them.
extension SignInResult: CompactJSONReadable, CompactJSONWritable {
    public init(reading parser: inout CompactJSONParser) throws {
        var user: User?
        var isNewUser: Bool?
        try parser.readObject { key, parser in
            switch key {
            case CodingKeys.user.stringValue: user = try User(reading: &parser)
            case CodingKeys.isNewUser.stringValue: isNewUser = try parser.readBool()
            default: try parser.skipValue()
            }
        }
        guard let user, let isNewUser else { throw CompactJSON.Unsupported() }
        self.init(user: user, isNewUser: isNewUser)
    }

    public func write(to json: inout JSONBytes, escapingSlashes: Bool) {
        json.write(#"{"user":"#)
        self.user.write(to: &json, escapingSlashes: escapingSlashes)
        json.write(#","is_new_user":"#)
        json.write(bool: self.isNewUser)
        json.write("}")
    }
}
