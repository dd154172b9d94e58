import Crypto
import FoundationEssentials
import TextCoding

/// The claim checks JWTKit leaves to us: issuer, time with leeway, and the nonce.
struct ClaimRules: Sendable {
    let issuers: Set<String>
    let leeway: TimeInterval
    let clock: IdentityClock

    /// `expires` is checked when present (Apple's notifications carry none).
    func check(issuer: String, expires: Date?, issuedAt: Date) throws(IdentityError) {
        guard self.issuers.contains(issuer) else { throw .invalidToken(reason: "issuer") }
        let now = self.clock.now()
        if let expires, expires.addingTimeInterval(self.leeway) <= now { throw .invalidToken(reason: "expired") }
        guard issuedAt.addingTimeInterval(-self.leeway) <= now else { throw .invalidToken(reason: "issued in the future") }
    }

    /// With a request nonce, the token's must be its lowercase hex SHA-256 or the value itself;
    /// a token nonce without a request nonce is refused (the client lost track of its request).
    static func checkNonce(requested: String?, inToken: String?) throws(IdentityError) {
        switch (requested, inToken) {
        case (nil, nil):
            return
        case (nil, .some):
            throw .invalidToken(reason: "nonce in token but not in request")
        case (.some, nil):
            throw .invalidToken(reason: "nonce in request but not in token")
        case (.some(let requested), .some(let inToken)):
            guard inToken == requested || inToken == sha256Hex(requested) else {
                throw .invalidToken(reason: "nonce mismatch")
            }
        }
    }

    static func sha256Hex(_ text: String) -> String {
        HexDigit.lowercase(SHA256.hash(data: Data(text.utf8)))
    }
}
