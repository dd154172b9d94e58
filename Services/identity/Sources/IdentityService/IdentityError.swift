import IdentityAPI
import ServiceProtocol

/// Everything a sign-in, link or user call can fail with; mapped to the catalogue in one place.
/// Reasons are for logs; callers see only the message of the catalogue entry.
public enum IdentityError: Error, Sendable, Equatable {
    /// The token is malformed, badly signed, for another app, expired, or fails a claim rule.
    case invalidToken(reason: String)
    /// A provider (JWKS, tokeninfo, userinfo) could not be reached or answered nonsense.
    case providerUnavailable(IdentityProvider, reason: String)
    /// The provider has no audiences configured.
    case providerNotConfigured(IdentityProvider)
    case badRequest(String)
    case userNotFound
    case userInactive
    /// A sign-in carried the access token of a user who is not a guest (DESIGN.md section 9.1).
    case notAGuest
    /// The identity belongs to another user.
    case identityAlreadyLinked
    /// The user already has an identity of this provider (a different account).
    case providerAlreadyLinked(IdentityProvider)
    /// Unlinking would leave the user with no way to sign in.
    case lastIdentity
    case identityNotLinked(IdentityProvider)
    /// Concurrent sign-ins of the same identity kept racing; the caller may try again.
    case signInContended
    /// An Apple server-to-server notification whose JWS does not verify (a client error, 400).
    case invalidNotification(reason: String)
}

extension IdentityError: RPCErrorConvertible {
    public var rpcError: RPCError {
        switch self {
        case .invalidToken:
            RPCError(.invalidIdentityToken, "The sign-in token is not valid; please sign in again")
        case .providerUnavailable(let provider, _):
            RPCError(.serviceUnavailable, "\(provider.displayName) sign-in is temporarily unavailable; please try again")
        case .providerNotConfigured(let provider):
            RPCError(.badRequest, "\(provider.displayName) sign-in is not enabled")
        case .badRequest(let message):
            RPCError(.badRequest, message)
        case .userNotFound:
            RPCError(.notFound, "No such user")
        case .userInactive:
            RPCError(.userInactive, "This account has been deactivated")
        case .notAGuest:
            RPCError(.badRequest, "A sign-in carries an access token only to upgrade a guest account; this one is not a guest's")
        case .identityAlreadyLinked:
            RPCError(.identityAlreadyLinked, "This sign-in is already linked to another account")
        case .providerAlreadyLinked(let provider):
            RPCError(.conflict, "This account already has a different \(provider.displayName) sign-in linked")
        case .lastIdentity:
            RPCError(.lastIdentity, "The last sign-in method of an account cannot be removed")
        case .identityNotLinked(let provider):
            RPCError(.notFound, "This account has no \(provider.displayName) sign-in")
        case .invalidNotification:
            RPCError(.badRequest, "The payload is not a valid signed Apple notification")
        case .signInContended:
            RPCError(.serviceUnavailable, "The service is temporarily unavailable; please try again")
        }
    }
}

extension IdentityProvider {
    var displayName: String {
        switch self {
        case .apple: "Apple"
        case .google: "Google"
        }
    }
}
