import FoundationEssentials
import JWTKit

/// The claims of a Sign in with Apple server-to-server notification: `iss`, `aud`, `iat`,
/// `jti`, an optional `exp`, and `events`, a JSON object written as a string. Its own `verify`
/// is empty: `AppleNotificationVerifier` checks issuer and time with the service's leeway.
struct AppleNotificationClaims: JWTIdentityToken {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim?
    var jti: IDClaim
    var events: String

    var audience: AudienceClaim { self.aud }

    func verify(using _: some JWTAlgorithm) throws {}
}

/// The `events` claim once read: what happened to which Apple account. `email_verified`-style
/// booleans may be strings, and `event_time` is Unix milliseconds.
struct AppleNotificationEvent: Decodable {
    var type: String
    var sub: String
    var email: String?
    var isPrivateEmail: Bool?
    var eventTime: Int64?

    enum CodingKeys: String, CodingKey {
        case type, sub, email
        case isPrivateEmail = "is_private_email"
        case eventTime = "event_time"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.type = try container.decode(String.self, forKey: .type)
        self.sub = try container.decode(String.self, forKey: .sub)
        self.email = try container.decodeIfPresent(String.self, forKey: .email)
        self.isPrivateEmail = try container.decodeIfPresent(FlexibleBool.self, forKey: .isPrivateEmail)?.value
        self.eventTime = try container.decodeIfPresent(FlexibleString.self, forKey: .eventTime).flatMap { Int64($0.value) }
    }
}
