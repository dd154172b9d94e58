import FoundationEssentials
import ServiceProtocol

/// Verifies a notification's JWS as an Apple identity token is verified (Apple's JWKS and its
/// cache, the algorithm pinned to the key, `aud` one of `APPLE_AUDIENCES`, `iss`, `iat` and a
/// present `exp` with leeway), refuses one issued longer ago than `maximumAge` (its `jti` may
/// be forgotten by then), and reads its `events` claim.
struct AppleNotificationVerifier: Sendable {
    /// Older notifications are refused, so that a replay can never outlive the remembered `jti`s.
    static let maximumAge: TimeInterval = 7 * 86_400

    let tokens: SignedTokenVerifier
    let rules: ClaimRules

    func verify(_ payload: String) async throws(IdentityError) -> AppleNotification {
        let claims = try await self.tokens.verify(payload, as: AppleNotificationClaims.self)
        try self.rules.check(issuer: claims.iss.value, expires: claims.exp?.value, issuedAt: claims.iat.value)
        guard claims.iat.value.addingTimeInterval(Self.maximumAge) > self.rules.clock.now() else {
            throw .invalidToken(reason: "notification older than 7 days")
        }
        let tokenID = claims.jti.value
        guard !tokenID.isEmpty, tokenID.utf8.count <= 255, StorableText.isStorable(tokenID) else {
            throw .invalidToken(reason: "jti")
        }
        let event = try Self.event(in: claims.events)
        return AppleNotification(
            tokenID: tokenID, kind: AppleNotificationKind(type: event.type), subject: event.sub,
            eventTime: event.eventTime.map { Date(timeIntervalSince1970: Double($0) / 1000) })
    }

    /// The event the `events` claim (a JSON object written as a string) names, with a subject
    /// that can be stored.
    static func event(in events: String) throws(IdentityError) -> AppleNotificationEvent {
        let event: AppleNotificationEvent
        do {
            event = try JSONDecoder().decode(AppleNotificationEvent.self, from: Data(events.utf8))
        } catch {
            throw .invalidToken(reason: "events is not a JSON event")
        }
        guard !event.sub.isEmpty, event.sub.utf8.count <= 255, StorableText.isStorable(event.sub) else {
            throw .invalidToken(reason: "events.sub")
        }
        return event
    }
}
