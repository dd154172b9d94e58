/// A code of the error catalogue (DESIGN.md section 6, plus the protocol's own).
///
/// A struct rather than an enum so that a code added by a newer peer still decodes.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { self.rawValue }

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rawValue)
    }

    // Public catalogue.
    public static let badRequest = ErrorCode("bad_request")
    public static let unauthorized = ErrorCode("unauthorized")
    /// An access token past its `exp` (plus the leeway): refresh.
    public static let tokenExpired = ErrorCode("token_expired")
    /// An access token whose session or user was revoked: sign in again.
    public static let sessionRevoked = ErrorCode("session_revoked")
    public static let invalidIdentityToken = ErrorCode("invalid_identity_token")
    public static let invalidRefreshToken = ErrorCode("invalid_refresh_token")
    public static let refreshTokenReused = ErrorCode("refresh_token_reused")
    /// A DPoP proof (RFC 9449) missing, malformed, by another key than the session's, for
    /// another request, stale or replayed (DESIGN.md section 9.2).
    public static let invalidDPoPProof = ErrorCode("invalid_dpop_proof")
    public static let forbidden = ErrorCode("forbidden")
    public static let userInactive = ErrorCode("user_inactive")
    public static let notFound = ErrorCode("not_found")
    public static let identityAlreadyLinked = ErrorCode("identity_already_linked")
    public static let lastIdentity = ErrorCode("last_identity")
    public static let conflict = ErrorCode("conflict")
    public static let payloadTooLarge = ErrorCode("payload_too_large")
    /// A non-empty body whose `Content-Type` is not JSON.
    public static let unsupportedMediaType = ErrorCode("unsupported_media_type")
    public static let rateLimited = ErrorCode("rate_limited")
    public static let serviceUnavailable = ErrorCode("service_unavailable")
    public static let `internal` = ErrorCode("internal")

    // Protocol-level codes, seen only by RPC callers.
    /// The connection has not presented a valid `hello`; the server closes it.
    public static let unauthenticated = ErrorCode("unauthenticated")
    /// The frame's length prefix exceeds the maximum; the server closes the connection.
    public static let frameTooLarge = ErrorCode("frame_too_large")
    /// No such method on this service.
    public static let methodNotFound = ErrorCode("method_not_found")
    /// The call's deadline passed before it completed.
    public static let deadlineExceeded = ErrorCode("deadline_exceeded")
}
