import Foundation

/// What Sign in with Apple gave the app, to sign in or to link Apple to the signed-in user.
public struct AppleCredential: Sendable, Hashable {
    /// The identity token (a JWT) as text.
    public var identityToken: String
    /// The authorization code, which lets the backend revoke Apple's authorization when the
    /// account is deleted.
    public var authorizationCode: String?
    /// The person's name: Apple gives it only on the first sign-in, so pass it whenever present.
    public var fullName: PersonNameComponents?
    /// The email Apple gave (first sign-in only).
    public var email: String?
    /// ``AppleNonce/raw`` of the nonce whose hash went into the Apple request.
    public var nonce: String?

    public init(
        identityToken: String, authorizationCode: String? = nil, fullName: PersonNameComponents? = nil, email: String? = nil,
        nonce: String? = nil
    ) {
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.fullName = fullName
        self.email = email
        self.nonce = nonce
    }

    /// The sign-in body of `POST /api/v1/auth/apple` (and of linking).
    func body(deviceName: String?) -> [String: JSONValue] {
        var body: [String: JSONValue] = ["identity_token": .string(self.identityToken)]
        body["authorization_code"] = self.authorizationCode.map(JSONValue.string)
        body["email"] = self.email.map(JSONValue.string)
        body["nonce"] = self.nonce.map(JSONValue.string)
        body["device_name"] = deviceName.map(JSONValue.string)
        if let name = self.fullName, name.givenName != nil || name.familyName != nil {
            var parts: [String: JSONValue] = [:]
            parts["given_name"] = name.givenName.map(JSONValue.string)
            parts["family_name"] = name.familyName.map(JSONValue.string)
            body["full_name"] = .object(parts)
        }
        return body
    }
}

/// What Google Sign-In gave the app: an ID token (preferred) or an OAuth access token.
public enum GoogleCredential: Sendable, Hashable {
    /// An ID token, with the raw nonce if the request carried one.
    case idToken(String, nonce: String? = nil)
    /// An access token, which the backend checks was issued to the app's client id.
    case accessToken(String)

    func body(deviceName: String?) -> [String: JSONValue] {
        var body: [String: JSONValue] = [:]
        switch self {
        case .idToken(let token, let nonce):
            body["id_token"] = .string(token)
            body["nonce"] = nonce.map(JSONValue.string)
        case .accessToken(let token):
            body["access_token"] = .string(token)
        }
        body["device_name"] = deviceName.map(JSONValue.string)
        return body
    }
}

/// A credential to link to the signed-in user (`POST /api/v1/auth/identities/{provider}`).
public enum LinkCredential: Sendable, Hashable {
    case apple(AppleCredential)
    case google(GoogleCredential)

    var provider: IdentityProvider {
        switch self {
        case .apple: .apple
        case .google: .google
        }
    }

    var body: [String: JSONValue] {
        switch self {
        case .apple(let credential): credential.body(deviceName: nil)
        case .google(let credential): credential.body(deviceName: nil)
        }
    }
}

#if canImport(AuthenticationServices)
import AuthenticationServices

extension AppleCredential {
    /// The credential of a finished Sign in with Apple request (`SignInWithAppleButton`'s
    /// `onCompletion`, or `ASAuthorizationControllerDelegate`), with the nonce made for it.
    /// Nil when Apple gave no identity token.
    public init?(_ credential: ASAuthorizationAppleIDCredential, nonce: AppleNonce?) {
        guard let data = credential.identityToken, let token = String(data: data, encoding: .utf8) else { return nil }
        self.init(
            identityToken: token, authorizationCode: credential.authorizationCode.flatMap { String(data: $0, encoding: .utf8) },
            fullName: credential.fullName, email: credential.email, nonce: nonce?.raw)
    }
}
#endif
