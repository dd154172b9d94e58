import Foundation

/// The Redis names of the revocation copy: written by `tokens`, read by the gateway and any
/// other reader (docs/revocation.md).
public enum RevocationKeys {
    /// Present (value: the reason) while a revoked session's access tokens may still live.
    public static func session(_ sessionID: UUID) -> String {
        "latchkey:revoked:session:\(sessionID.uuidString.lowercased())"
    }

    /// The user's not-before (Unix seconds): access tokens with `iat` below it are dead.
    public static func user(_ userID: UUID) -> String {
        "latchkey:revoked:user:\(userID.uuidString.lowercased())"
    }

    /// Present when Redis holds every revocation younger than `ACCESS_TOKEN_TTL`; readers
    /// treat its absence as Redis being unreachable.
    public static let complete = "latchkey:revocations:complete"

    /// Every revocation is published here (JSON), so readers may cache.
    public static let channel = "latchkey:revocations"

    /// Kept this much longer than an access token lives, for clock skew between hosts.
    public static let skewMargin: TimeInterval = 60
}
