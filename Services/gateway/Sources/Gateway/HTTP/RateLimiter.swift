import FoundationEssentials
import HTTPTypes
import Hummingbird
import Logging
import Redis

/// Per-client-IP limits in Redis (sign-in, refresh, admin login): a counter per IP and
/// minute window, `INCR` + `EXPIRE` in one round trip, shared by every gateway replica. Over
/// the limit is 429 `rate_limited` with `Retry-After` (seconds to the next window). When
/// Redis cannot be asked the request goes through: an outage must not lock everyone out of
/// signing in, and the limit is a brake on abuse, not an authorization.
struct RateLimiter: Sendable {
    let redis: RedisClient
    /// The client address behind `TRUSTED_PROXIES`.
    let clientAddresses: ClientAddressResolver
    /// The time the windows are counted in (the tests set their own).
    var now: @Sendable () -> Date = { Date() }

    /// `failClosed`: when Redis does not answer, refuse (503) instead of letting the request by.
    func check(
        _ bucket: String, limit: Int, request: Request, context: GatewayRequestContext, failClosed: Bool = false
    ) async throws {
        guard limit > 0 else { return }
        try await self.count(bucket, client: self.clientIP(request, context), limit: limit, failClosed: failClosed, logger: context.logger)
    }

    /// Counts one request of `client` in `bucket`'s current minute; throws 429 `rate_limited`
    /// with `Retry-After` past `limit` (0: no limit), and, when Redis does not answer, nothing
    /// (or 503 when `failClosed`).
    func count(_ bucket: String, client: String, limit: Int, failClosed: Bool = false, logger: Logger) async throws {
        guard limit > 0 else { return }
        let now = Int(self.now().timeIntervalSince1970.rounded(.down))
        let window = now / 60
        let key = "latchkey:ratelimit:\(bucket):\(client):\(window)"
        let count: Int
        do {
            let replies = try await self.redis.pipeline([["INCR", key], ["EXPIRE", key, "61"]])
            guard let value = replies.first?.intValue else { throw RedisError.protocolError("INCR reply") }
            count = value
        } catch {
            logger.warning("Rate limit not checked: Redis did not answer", metadata: ["error": "\(error)"])
            if failClosed { throw APIError.serviceUnavailable }
            return
        }
        guard count > limit else { return }
        let retryAfter = (window + 1) * 60 - now
        throw APIError(
            .tooManyRequests, .rateLimited, "Too many requests, please retry in \(retryAfter) seconds",
            headers: [.retryAfter: "\(retryAfter)"])
    }

    /// The client a limit counts: its address, an IPv6 address by its /64.
    func clientIP(_ request: Request, _ context: GatewayRequestContext) -> String {
        let peer = context.remoteAddress?.ipAddress.flatMap { IPAddress($0) }
        let client = self.clientAddresses.resolve(peer: peer, forwardedFor: request.headers[values: .xForwardedFor])
        return client?.rateLimitKey ?? "unknown"
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
