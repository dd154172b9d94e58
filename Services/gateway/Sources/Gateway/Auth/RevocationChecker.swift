import TokensAPI
import FoundationEssentials
import Logging
import Redis
import ServiceKit

/// Reads the revocation copy `tokens` keeps in Redis (docs/revocation.md) for one token, or
/// the live verdict `RevocationCache` still holds for its session.
struct RevocationChecker: Sendable {
    let redis: RedisClient
    /// `REVOCATION_FAIL_OPEN`: when Redis cannot answer (or its copy is incomplete), let the
    /// request through instead of failing it with 503.
    let failOpen: Bool
    /// Live verdicts kept between requests; nil when `REVOCATION_CACHE_TTL` is 0.
    var cache: RevocationCache? = nil

    enum Verdict: Equatable, Sendable {
        case live
        /// Revoked; the session key's reason when there is one (`deactivated`, `deleted`, ...).
        case revoked(reason: String?)
    }

    func check(_ token: VerifiedToken, logger: Logger) async throws -> Verdict {
        if let cache = self.cache, cache.isLive(token) { return .live }
        let epoch = self.cache?.epoch()
        let values: [RedisValue]
        do {
            let reply = try await self.redis.command([
                "MGET", RevocationKeys.complete, RevocationKeys.session(token.caller.sessionID), RevocationKeys.user(token.caller.userID),
            ])
            guard let array = reply.arrayValue, array.count == 3 else { throw RedisError.protocolError("MGET reply") }
            values = array
        } catch {
            return try self.unknown("Redis unreachable for the revocation check", error: "\(error)", logger: logger)
        }
        if values[0].isNull {
            return try self.unknown("Revocation copy incomplete (marker missing)", error: nil, logger: logger)
        }
        if !values[1].isNull { return .revoked(reason: values[1].stringValue) }
        if let text = values[2].stringValue, let notBefore = RevocationKeys.notBeforeMilliseconds(text), token.issuedAt < notBefore {
            return .revoked(reason: nil)
        }
        if let epoch { self.cache?.storeLive(token, epoch: epoch) }
        return .live
    }

    private func unknown(_ message: Logger.Message, error: String?, logger: Logger) throws -> Verdict {
        if self.failOpen {
            logger.warning("\(message); letting the request through (REVOCATION_FAIL_OPEN)", metadata: error.map { ["error": "\($0)"] })
            return .live
        }
        logger.error("\(message); failing closed", metadata: error.map { ["error": "\($0)"] })
        throw APIError.serviceUnavailable
    }
}
