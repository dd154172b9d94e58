/// The nonce of a Sign in with Apple request: put ``sha256`` in the Apple request
/// (`ASAuthorizationAppleIDRequest.nonce`) and give ``raw`` to
/// ``AppleCredential/init(identityToken:authorizationCode:fullName:email:nonce:)``; the
/// gateway checks that the identity token carries the hash of it, so a stolen token cannot be
/// replayed by another request.
public struct AppleNonce: Sendable, Hashable {
    /// The random value the app keeps and sends to the gateway.
    public let raw: String
    /// The lowercase hex SHA-256 of ``raw``: what Apple puts in the identity token.
    public let sha256: String

    /// A new nonce of `length` characters from a cryptographically secure generator.
    public init(length: Int = 32) {
        var generator = SystemRandomNumberGenerator()
        self.init(raw: Self.random(length: length, using: &generator))
    }

    /// The nonce for a raw value the app chose itself.
    public init(raw: String) {
        self.raw = raw
        self.sha256 = SHA256.hex(raw.utf8)
    }

    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-._")

    static func random(length: Int, using generator: inout some RandomNumberGenerator) -> String {
        String((0..<max(length, 1)).map { _ in Self.alphabet.randomElement(using: &generator)! })
    }
}
