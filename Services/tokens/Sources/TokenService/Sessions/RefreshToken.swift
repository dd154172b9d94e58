import TextCoding
import TokensAPI
import Crypto
import FoundationEssentials
import ServiceKit
import ServiceProtocol

/// An opaque refresh token: 32 random bytes, base64url without padding (43 characters).
/// Only its SHA-256 is stored; a key derived from it seals the successor pair of a rotation.
struct RefreshToken: Sendable {
    let text: String
    private let bytes: [UInt8]
    /// The primary key of the token's row: its SHA-256, computed once (a refresh looks the
    /// token up by it, rotates it and remembers its successor by it).
    let hash: [UInt8]

    /// A new random token. The bytes come from the system generator 8 at a time (one
    /// `getrandom` call each), not one call per byte.
    init() {
        self.bytes = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        self.text = Base64URL.encode(self.bytes)
        self.hash = Self.hash(of: self.bytes)
    }

    /// A presented token, or nil when it cannot be one of ours.
    init?(presented text: String) {
        guard text.utf8.count == 43, let bytes = Base64URL.decode(text), bytes.count == 32 else { return nil }
        self.text = text
        self.bytes = bytes
        self.hash = Self.hash(of: bytes)
    }

    private static func hash(of bytes: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: bytes))
    }

    /// The key that seals this token's successor: only a holder of this token can derive it,
    /// and it is independent of the stored hash. HKDF-SHA256 (RFC 5869) with salt
    /// `latchkey.tokens` and info `refresh successor v1`, for 32 bytes: one block, so the
    /// extract and the one expand step are an HMAC each, computed here directly (the same key
    /// `HKDF<SHA256>.deriveKey` gives, for a third of its cost: `RotationTests`).
    var sealingKey: SymmetricKey {
        let pseudorandomKey = HMAC<SHA256>.authenticationCode(for: self.bytes, using: Self.salt)
        let block = HMAC<SHA256>.authenticationCode(for: Self.infoAndCounter, using: SymmetricKey(data: pseudorandomKey))
        return SymmetricKey(data: block)
    }

    private static let salt = SymmetricKey(data: Array("latchkey.tokens".utf8))
    /// The info, `refresh successor v1`, then the block counter 1: the input of the first (and
    /// only) expand step.
    private static let infoAndCounter = Array("refresh successor v1".utf8) + [1]

    /// Seals the JSON of a successor pair (AES-GCM) for storage next to this token's hash.
    func seal(_ json: RawJSON) throws -> [UInt8] {
        Array(try AES.GCM.seal(json.utf8, using: self.sealingKey).combined!)
    }

    /// Opens a successor sealed by `seal`; nil when it was not sealed with this token.
    func open(_ sealed: [UInt8]) -> TokenPair? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let plaintext = try? AES.GCM.open(box, using: self.sealingKey)
        else { return nil }
        return try? RPCJSON.decode(TokenPair.self, from: plaintext)
    }
}
