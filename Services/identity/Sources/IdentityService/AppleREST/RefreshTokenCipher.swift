import Crypto
import FoundationEssentials

/// Seals Apple refresh tokens with AES-256-GCM before they reach Postgres
/// (key: `APPLE_TOKEN_ENCRYPTION_KEY`). Stored form: nonce ‖ ciphertext ‖ tag.
struct RefreshTokenCipher: Sendable {
    private static let context = Data("latchkey apple refresh token v1".utf8)
    private let key: SymmetricKey

    init(key: [UInt8]) {
        self.key = SymmetricKey(data: key)
    }

    func seal(_ token: String) throws -> [UInt8] {
        let box = try AES.GCM.seal(Data(token.utf8), using: self.key, authenticating: Self.context)
        guard let combined = box.combined else { throw CryptoKitError.incorrectParameterSize }
        return Array(combined)
    }

    func open(_ sealed: [UInt8]) throws -> String {
        let box = try AES.GCM.SealedBox(combined: sealed)
        return String(decoding: try AES.GCM.open(box, using: self.key, authenticating: Self.context), as: UTF8.self)
    }
}
