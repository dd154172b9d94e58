import Foundation

/// What a test or the local stack asks the mock to mint: a Sign in with Apple server-to-server
/// notification for one subject, shaped as Apple sends it (`iss`, `aud`, `iat`, `jti`, and
/// `events` as a JSON string holding `type`, `sub`, `email`, `is_private_email`, `event_time`).
/// Apple's notifications carry no `exp`; `lifetime_seconds` adds one.
public struct AppleNotificationMintRequest: Sendable, Codable {
    public var subject: String
    public var audience: String
    /// Apple's event type: `consent-revoked`, `account-delete` (or `account-deleted`),
    /// `email-disabled`, `email-enabled`; any other text is minted as given.
    public var type: String
    public var email: String?
    public var isPrivateEmail: MockBool?
    /// Defaults to a fresh UUID; pass one to mint a repeat.
    public var jti: String?
    public var issuedAt: Date?
    public var lifetimeSeconds: Int?
    /// A deliberately bad JWS of this kind instead of a good one.
    public var defect: TokenDefect?

    enum CodingKeys: String, CodingKey {
        case subject = "sub"
        case audience = "aud"
        case type, email, jti, defect
        case isPrivateEmail = "is_private_email"
        case issuedAt = "iat"
        case lifetimeSeconds = "lifetime_seconds"
    }

    public init(
        subject: String, audience: String, type: String, email: String? = nil, isPrivateEmail: MockBool? = nil,
        jti: String? = nil, issuedAt: Date? = nil, lifetimeSeconds: Int? = nil, defect: TokenDefect? = nil
    ) {
        self.subject = subject
        self.audience = audience
        self.type = type
        self.email = email
        self.isPrivateEmail = isPrivateEmail
        self.jti = jti
        self.issuedAt = issuedAt
        self.lifetimeSeconds = lifetimeSeconds
        self.defect = defect
    }

    /// The `events` claim: a JSON object written as a string, as Apple does.
    func eventsClaim(eventTime: Date) throws -> String {
        struct Event: Encodable {
            var type: String
            var sub: String
            var email: String?
            var is_private_email: MockBool?
            var event_time: Int64
        }
        let event = Event(
            type: self.type, sub: self.subject, email: self.email, is_private_email: self.isPrivateEmail,
            event_time: Int64(eventTime.timeIntervalSince1970 * 1000))
        return String(decoding: try JSONEncoder().encode(event), as: UTF8.self)
    }
}
