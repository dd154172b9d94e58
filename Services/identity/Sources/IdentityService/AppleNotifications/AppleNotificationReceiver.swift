import CoreMetrics
import FoundationEssentials
import ServiceProtocol
import IdentityAPI
import Logging
import TextCoding

/// `identity.appleNotification`: verifies the JWS, applies the event once, logs it and counts
/// it in `identity_apple_notifications_total{type,outcome}` (outcome `applied`, `repeated`,
/// `unknown_subject`, `unknown_type`, or `invalid` for a JWS that does not verify).
struct AppleNotificationReceiver: Sendable {
    let verifier: AppleNotificationVerifier
    let store: AppleNotificationStore
    let appleConfigured: Bool
    let logger: Logger

    func receive(_ params: AppleNotificationParams, context: RPCRequestContext? = nil) async throws -> AppleNotificationResult {
        guard self.appleConfigured else { throw IdentityError.providerNotConfigured(.apple) }
        let notification: AppleNotification
        do {
            notification = try await self.verifier.verify(params.payload)
        } catch IdentityError.invalidToken(let reason) {
            Self.count(type: "unknown", outcome: "invalid")
            self.logger.info("Refused an Apple notification", metadata: ["reason": "\(reason)"])
            throw IdentityError.invalidNotification(reason: reason)
        }
        let result = try await self.store.apply(notification, context: context)
        Self.count(type: notification.kind.label, outcome: result.outcome.rawValue)
        var metadata: Logger.Metadata = [
            "apple.notification.jti": "\(notification.tokenID)", "apple.notification.type": "\(notification.kind.label)",
            "apple.notification.outcome": "\(result.outcome.rawValue)", "apple.notification.follow_up": "\(result.followUp.rawValue)",
        ]
        if let userID = result.userID { metadata["user.id"] = "\(userID.lowercasedText)" }
        if case .unknown(let type) = notification.kind { metadata["apple.notification.raw_type"] = "\(type.prefix(64))" }
        self.logger.info("Apple notification", metadata: metadata)
        return AppleNotificationResult(
            jti: notification.tokenID, type: notification.kind.label, outcome: result.outcome, followUp: result.followUp,
            userID: result.userID)
    }

    private static func count(type: String, outcome: String) {
        Counter(label: "identity_apple_notifications_total", dimensions: [("type", type), ("outcome", outcome)]).increment()
    }
}
