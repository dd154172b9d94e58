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

    /// Only a verified, non-relay, ASCII email may join this identity to an existing user. A
    /// non-ASCII address never links by itself: Unicode case folding and look-alike characters
    /// would let one address match another person's.
    public var mayLinkByEmail: Bool {
        guard let email = self.email else { return false }
        return self.emailVerified && !self.isRelayEmail && email.utf8.allSatisfy { $0 < 0x80 }
    }

    /// The email as linking compares it: ASCII letters folded to lower case, nothing else.
    static func emailMatchKey(_ email: String) -> String {
        String(decoding: email.utf8.map { (0x41...0x5A).contains($0) ? $0 + 0x20 : $0 }, as: UTF8.self)
    }
}
