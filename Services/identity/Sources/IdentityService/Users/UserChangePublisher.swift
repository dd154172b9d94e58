import FoundationEssentials
import IdentityAPI
import Logging
import Redis
import TextCoding

/// Announces committed user changes on `UserChanges.channel` (when identity has `REDIS_URL`).
///
/// Best effort by design: the change is already committed, so a failed announcement is logged,
/// not returned; a gateway that missed it shows the old user until its cache entry lapses
/// (`USER_CACHE_TTL`), and a gateway whose own subscription broke keeps nothing meanwhile.
struct UserChangePublisher: Sendable {
    let redis: RedisClient?
    let logger: Logger

    /// Publishes the change of `user`; returns once Redis has taken it (or failed).
    func changed(_ user: UUID) async {
        guard let redis else { return }
        do {
            _ = try await redis.command(["PUBLISH", UserChanges.channel, UserChanges.Message.text(user: user)])
        } catch {
            self.logger.warning(
                "Cannot announce a user change; gateways may show the old user until their cache lapses",
                metadata: ["user.id": "\(user.lowercasedText)", "error": "\(error)"])
        }
    }
}
