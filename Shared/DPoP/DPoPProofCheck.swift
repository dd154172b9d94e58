/// What a verified proof must match (RFC 9449 section 4.3): the request's method and URL, the
/// time (`iat` no older than `maximumAge` plus `leeway`, no later than `leeway` ahead), and,
/// with an access token, `ath` and the token's `cnf.jkt`.
public struct DPoPProofCheck: Sendable {
    /// `DPOP_PROOF_MAX_AGE`, seconds.
    public var maximumAge: Int
    /// Clock skew allowed either way, seconds.
    public var leeway: Int

    public init(maximumAge: Int, leeway: Int) {
        self.maximumAge = maximumAge
        self.leeway = leeway
    }

    /// How long a proof's `jti` must be remembered: as long as a proof with its `iat` could
    /// still be accepted, counted from the first time it was seen.
    public var replayWindow: Int { self.maximumAge + 2 * self.leeway }

    /// Checks `proof` against a request with `method` to `uri` (both as the gateway sees them),
    /// at `now` (Unix seconds). With `accessToken`, `ath` must be its hash and the proof's key
    /// `boundTo`, the token's `cnf.jkt`.
    public func check(
        _ proof: DPoPProof, method: String, uri: String, now: Double, accessToken: String? = nil, boundTo: String? = nil
    ) throws(DPoPProofError) {
        guard proof.method == method else { throw .wrongMethod }
        guard let claimed = DPoPTargetURI.normalized(proof.targetURI), claimed == DPoPTargetURI.normalized(uri) else {
            throw .wrongURI
        }
        let issuedAt = Double(proof.issuedAt)
        guard issuedAt >= now - Double(self.maximumAge + self.leeway), issuedAt <= now + Double(self.leeway) else { throw .stale }
        if let accessToken {
            guard proof.accessTokenHash == DPoPProof.accessTokenHash(of: accessToken) else { throw .wrongAccessTokenHash }
        }
        if let boundTo {
            guard proof.thumbprint == boundTo else { throw .wrongKey }
        }
    }
}
