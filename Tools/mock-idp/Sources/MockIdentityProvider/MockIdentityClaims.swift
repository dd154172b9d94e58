import Foundation
import JWTKit

/// A boolean claim written the way the test wants it: JSON `true` or the string `"true"`
/// (Apple sends `email_verified` and `is_private_email` either way).
public enum MockBool: Sendable, Codable, Equatable {
    case bool(Bool)
    case string(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        }
    }
}

/// The claims of a minted identity token or Apple notification; every member optional so that
/// tests can leave any out. Times are whole Unix seconds, as the providers write them.
public struct MockIdentityClaims: JWTPayload, Equatable {
    public var iss: String?
    public var sub: String?
    public var aud: String?
    public var azp: String?
    public var iat: Int?
    public var exp: Int?
    public var nonce: String?
    public var email: String?
    public var emailVerified: MockBool?
    public var isPrivateEmail: MockBool?
    public var name: String?
    public var givenName: String?
    public var familyName: String?
    /// Apple notifications only: the token's id and the event, a JSON object as a string.
    public var jti: String?
    public var events: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, azp, iat, exp, nonce, email, name, jti, events
        case emailVerified = "email_verified"
        case isPrivateEmail = "is_private_email"
        case givenName = "given_name"
        case familyName = "family_name"
    }

    public init() {}

    /// The mock signs whatever it is asked to; it verifies nothing.
    public func verify(using _: some JWTAlgorithm) throws {}
}
