import FoundationEssentials
import TextCoding

/// The Redis names of the revocation copy: written by `tokens`, read by the gateway and any
/// other reader (docs/revocation.md).
public enum RevocationKeys {
    /// Present (value: the reason) while a revoked session's access tokens may still live.
    public static func session(_ sessionID: UUID) -> String {
        "latchkey:revoked:session:\(sessionID.lowercasedText)"
    }

    /// The user's not-before (Unix seconds with milliseconds, `notBeforeValue`): access tokens
    /// with `iat` below it are dead.
    public static func user(_ userID: UUID) -> String {
        "latchkey:revoked:user:\(userID.lowercasedText)"
    }

    /// How a not-before is written: Unix seconds with three decimals (`1767225600.123`), so that
    /// a token issued later in the same second (`iat` carries milliseconds) is not refused.
    public static func notBeforeValue(milliseconds: Int64) -> String {
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)"
    }

    /// A not-before value read back, in Unix milliseconds; whole seconds (written by earlier
    /// versions) are read as such. Nil when it is neither, or past `Int64` milliseconds.
    public static func notBeforeMilliseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let seconds = Int64(parts[0]), case (let whole, false) = seconds.multipliedReportingOverflow(by: 1000) else { return nil }
        guard parts.count == 2 else { return whole }
        let decimals = parts[1]
        guard !decimals.isEmpty, decimals.allSatisfy({ ("0"..."9").contains($0) }), let fraction = Int64(decimals.prefix(3))
        else { return nil }
        // A value finer than milliseconds rounds up: a not-before never moves earlier.
        let finer = decimals.dropFirst(3).contains { $0 != "0" }
        let (milliseconds, overflow) = whole.addingReportingOverflow(fraction * [100, 10, 1][min(decimals.count, 3) - 1] + (finer ? 1 : 0))
        return overflow ? nil : milliseconds
    }

    /// An access token's issue time in Unix milliseconds: its `iat_ms` claim, so that a token
    /// issued after a revocation in the same second is not refused; for a token without one
    /// (earlier versions), its whole-second `iat`.
    public static func issuedAtMilliseconds(claim: Int64?, issuedAt: Date) -> Int64 {
        claim ?? Int64(issuedAt.timeIntervalSince1970.rounded(.down)) * 1000
    }

    /// Unix milliseconds of a time, rounded down (an `iat_ms`) or up (a not-before).
    public static func milliseconds(_ date: Date, rounding rule: FloatingPointRoundingRule) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(rule))
    }

    /// Present when Redis holds every revocation younger than `ACCESS_TOKEN_TTL`; readers
    /// treat its absence as Redis being unreachable.
    public static let complete = "latchkey:revocations:complete"

    /// Every revocation is published here (JSON), so readers may cache.
    public static let channel = "latchkey:revocations"

    /// The largest clock leeway any verifier may give an access token past its `exp` (the
    /// gateway's `TOKEN_CLOCK_LEEWAY` is capped at this).
    public static let maximumVerifierLeeway = 300

    /// Kept this much longer than an access token lives: every verifier's leeway, plus a minute
    /// of clock skew between hosts. A revocation key that expired while a verifier still accepts
    /// the token would bring the token back.
    public static let skewMargin = TimeInterval(maximumVerifierLeeway) + clockSkew

    /// Clock skew allowed between hosts.
    public static let clockSkew: TimeInterval = 60
}
