import CompactJSON
import FoundationEssentials
import JWTKit
import Logging
import NIOCore
import NIOHTTP1

/// Identity's readers of untrusted input, for the fuzz targets (`Tools/fuzz`, `scripts/fuzz`):
/// a provider token's header and claims, an Apple notification's `events`, a provider's JWKS
/// and its `Cache-Control`, an operator's user cursor. Package-only.
package enum IdentityFuzzing {
    /// A provider token's `kid` and `alg` as the verifier reads them before it picks a key (by
    /// hand, else through JWTKit's parser); nil when it refuses the token.
    package static func header(of token: String) -> JWSHeader? {
        try? SignedTokenVerifier.header(of: token, bytes: Array(token.utf8))
    }

    /// The claim sets identity reads from a provider token's payload.
    package enum Claims: CaseIterable, Sendable {
        case apple, google, appleNotification
    }

    /// `payload` read as `claims` by the decoder identity gives JWTKit, or by `reference`
    /// instead, and written back (sorted keys, dates in seconds since 1970) so that two
    /// readings compare as bytes; nil when the reader refuses it.
    package static func claims(_ claims: Claims, in payload: Data, reference: JSONDecoder? = nil) -> Data? {
        let decoder: any JWTJSONDecoder = reference.map { $0 as any JWTJSONDecoder } ?? CompactJWTJSONDecoder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        encoder.dateEncodingStrategy = .secondsSince1970
        switch claims {
        case .apple: return (try? decoder.decode(AppleClaims.self, from: payload)).flatMap { try? encoder.encode($0) }
        case .google: return (try? decoder.decode(GoogleClaims.self, from: payload)).flatMap { try? encoder.encode($0) }
        case .appleNotification:
            return (try? decoder.decode(AppleNotificationClaims.self, from: payload)).flatMap { try? encoder.encode($0) }
        }
    }

    /// What an Apple notification's `events` claim says, as the notification verifier reads it.
    package struct AppleEvent: Sendable, Equatable {
        package var type: String
        package var label: String
        package var subject: String
        package var email: String?
        package var isPrivateEmail: Bool?
        package var eventTime: Int64?
    }

    package static func appleEvent(_ events: String) -> Result<AppleEvent, IdentityError> {
        do {
            let event = try AppleNotificationVerifier.event(in: events)
            return .success(
                AppleEvent(
                    type: event.type, label: AppleNotificationKind(type: event.type).label, subject: event.sub, email: event.email,
                    isPrivateEmail: event.isPrivateEmail, eventTime: event.eventTime))
        } catch {
            return .failure(error)
        }
    }

    /// The keys a provider's JWKS document gives the verifier, each `kid` with the algorithm
    /// it is pinned to; nil when the document is not a JWKS (the fetch fails).
    package static func keys(inJWKS document: Data) async -> [String: String]? {
        let reply = ProviderHTTP.Reply(status: 200, headers: [:], body: ByteBuffer(data: document))
        guard let jwks = try? reply.decode(JWKS.self) else { return nil }
        var quiet = Logger(label: "identity-fuzzing")
        quiet.logLevel = .critical
        return await ProviderKeySet.make(from: jwks, expiresAt: Date(), logger: quiet).algorithms
    }

    /// How long a provider's `Cache-Control` keeps its keys fresh, before the cache's bounds.
    package static func maxAge(cacheControl: String?) -> TimeInterval? {
        CacheControl.maxAge(cacheControl)
    }

    /// An operator's user-list cursor: its fields and the text it is written as again.
    package static func userCursor(_ text: String) -> (createdMicros: Int, id: UUID, text: String)? {
        UserCursor(text: text).map { ($0.createdMicros, $0.id, $0.text) }
    }
}
