import IdentityAPI
/// What a provider vouches for after its token checked out.
public struct VerifiedIdentity: Sendable, Equatable {
    public var provider: IdentityProvider
    public var subject: String
    public var email: String?
    public var emailVerified: Bool
    public var isPrivateEmail: Bool
    /// The name the provider gave (Google) or the client passed on first sign-in (Apple).
    public var name: String?
    /// Our client ID the token was issued to (Apple's code exchange needs it).
    public var audience: String

    /// An Apple private-relay address, whatever the flag says.
    public var isRelayEmail: Bool {
        self.isPrivateEmail || (self.email?.lowercased().hasSuffix("@privaterelay.appleid.com") ?? false)
    }

    /// Only a verified, non-relay email may join this identity to an existing user.
    public var mayLinkByEmail: Bool {
        self.email != nil && self.emailVerified && !self.isRelayEmail
    }
}
