import Crypto
import DPoP
import FoundationEssentials
import Logging
import Redis
import TextCoding

/// The `jti`s of the DPoP proofs seen, in Redis so that every gateway sees them: one
/// `SET key 1 NX EX window` per proof, which only the first use of a `jti` (by its key) wins.
/// The key is a digest, so a client's `jti` never becomes a Redis key as it is. The `SET`s of
/// concurrent requests go together (`RedisCommandLine`): one round trip for many.
struct DPoPReplays: Sendable {
    let line: RedisCommandLine
    /// Seconds a `jti` is kept: as long as a proof carrying it could be accepted.
    let window: Int
    /// `REVOCATION_FAIL_OPEN`: when Redis cannot answer, let the proof through (as revocation
    /// does) instead of 503.
    let failOpen: Bool

    /// Where a proof's `jti` is remembered.
    static func key(for proof: DPoPProof) -> String {
        "latchkey:dpop:jti:" + Base64URL.encode(SHA256.hash(data: Array((proof.thumbprint + "." + proof.tokenID).utf8)))
    }

    /// True when no proof by this key used this `jti` within the window.
    func firstUse(of proof: DPoPProof, logger: Logger) async throws -> Bool {
        do {
            let reply = try await self.line.run(["SET", Self.key(for: proof), "1", "NX", "EX", String(self.window)])
            return !reply.isNull
        } catch {
            if self.failOpen {
                logger.warning("Redis unreachable for the DPoP replay check; letting the proof through (REVOCATION_FAIL_OPEN)")
                return true
            }
            logger.error("Redis unreachable for the DPoP replay check; failing closed", metadata: ["error": "\(error)"])
            throw APIError.serviceUnavailable
        }
    }
}
