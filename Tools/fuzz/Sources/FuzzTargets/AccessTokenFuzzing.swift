import Crypto
import Foundation
import Gateway
import TextCoding
import TokensAPI
import _CryptoExtras

/// The bearer token of every authenticated request, checked the way the gateway does, with an
/// ES256 key (`kid` "fuzz-es256") and an RS256 key ("fuzz-rs256") published. An input ending in
/// `.SIGN` (or `.RSIGN`) is signed here with the ES256 (RS256) key first, so the fuzzer reaches
/// the header and claim checks behind a valid signature; any other input is checked as it is.
/// Properties: nothing traps; every refusal is a 401; a token is accepted only if this target
/// signed it, and only with the pinned `iss` and `aud`, an `exp` not past the leeway, and the
/// `sub` and `sid` the gateway then acts for.
final class AccessTokenFuzzing: Sendable {
    static let shared = AccessTokenFuzzing()
    static let issuer = "latchkey"
    static let audience = "latchkey-app"
    static let leeway = 60

    let es256 = P256.Signing.PrivateKey()
    let rs256: _RSA.Signing.PrivateKey
    let check: GatewayFuzzing.TokenCheck

    private init() {
        self.rs256 = try! _RSA.Signing.PrivateKey(keySize: .bits2048)
        let point = Array(self.es256.publicKey.x963Representation)  // 0x04 || x || y
        let primitives = try! self.rs256.publicKey.getKeyPrimitives()
        let keys = PublicJWKS(keys: [
            PublicJWK(
                kty: "EC", kid: "fuzz-es256", use: "sig", alg: "ES256", crv: "P-256", x: Base64URL.encode(point[1..<33]),
                y: Base64URL.encode(point[33..<65])),
            PublicJWK(
                kty: "RSA", kid: "fuzz-rs256", use: "sig", alg: "RS256", n: Base64URL.encode(primitives.modulus),
                e: Base64URL.encode(primitives.publicExponent)),
        ])
        self.check = Blocking.run { try! await GatewayFuzzing.TokenCheck(keys: keys, issuer: Self.issuer, audience: Self.audience, leeway: Self.leeway) }
    }

    func run(_ bytes: UnsafeRawBufferPointer) {
        var token = String(decoding: bytes, as: UTF8.self)
        var signedHere = false
        if token.hasSuffix(".SIGN") {
            let input = String(token.dropLast(5))
            token = input + "." + Base64URL.encode(try! self.es256.signature(for: Data(input.utf8)).rawRepresentation)
            signedHere = true
        } else if token.hasSuffix(".RSIGN") {
            let input = String(token.dropLast(6))
            token = input + "." + Base64URL.encode(try! self.rs256.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
            signedHere = true
        }
        let check = self.check
        let answer = Blocking.run { [token] in await check.verify(token) }
        switch answer {
        case .failure(let refusal):
            FuzzCheck.require(refusal.status == 401, "refused with \(refusal)")
        case .success(let caller):
            FuzzCheck.require(signedHere, "accepted a token this target did not sign: \(token)")
            Self.checkClaims(of: token, caller: caller)
        }
    }

    /// What an accepted token says, read by Foundation's parser, against what the gateway acts on.
    static func checkClaims(of token: String, caller: GatewayFuzzing.TokenCheck.Caller) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        FuzzCheck.require(parts.count == 3, "accepted a token of \(parts.count) parts")
        // No member named twice in the header or the claims, by a reference apart from the
        // gateway's parser (RFC 7519 §4; the gateway once read the first of two `sub`s).
        for part in parts.prefix(2) {
            let json = Base64URL.decode(String(part)) ?? []
            FuzzCheck.require(!FoundationJSON.namesAMemberTwice(json), "accepted a token naming a member twice: \(token)")
        }
        guard parts.count == 3, let payload = Base64URL.decode(String(parts[1])),
            let claims = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any]
        else {
            FuzzCheck.require(false, "accepted a token whose payload is not a JSON object")
            return
        }
        FuzzCheck.require(claims["iss"] as? String == Self.issuer, "accepted iss \(String(describing: claims["iss"]))")
        if let notBefore = claims["nbf"] {
            let seconds = (notBefore as? NSNumber)?.doubleValue ?? .infinity
            FuzzCheck.require(seconds <= Date().timeIntervalSince1970 + Double(Self.leeway) + 5, "accepted nbf \(notBefore)")
        }
        if let header = Base64URL.decode(String(parts[0])).flatMap({ FoundationJSON.strictObject($0) }) {
            FuzzCheck.require(header["crit"] == nil, "accepted a critical extension: \(String(describing: header["crit"]))")
        }
        let audience = (claims["aud"] as? String).map { [$0] } ?? (claims["aud"] as? [String]) ?? []
        FuzzCheck.require(audience.contains(Self.audience), "accepted aud \(String(describing: claims["aud"]))")
        let expires = (claims["exp"] as? NSNumber)?.doubleValue ?? -.infinity
        FuzzCheck.require(expires + Double(Self.leeway) > Date().timeIntervalSince1970 - 5, "accepted exp \(expires)")
        FuzzCheck.require(
            (claims["sub"] as? String).flatMap(UUID.init(uuidString:)) == caller.userID, "acts for \(caller.userID), sub is \(String(describing: claims["sub"]))")
        FuzzCheck.require(
            (claims["sid"] as? String).flatMap(UUID.init(uuidString:)) == caller.sessionID, "acts for session \(caller.sessionID), sid is \(String(describing: claims["sid"]))")
    }
}

/// Runs async work to its end from synchronous code (libFuzzer calls the target on its own
/// thread, never on the concurrency pool).
enum Blocking {
    final class Box<T>: @unchecked Sendable {
        var value: T?
    }

    static func run<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
        let box = Box<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await body()
            done.signal()
        }
        done.wait()
        return box.value!
    }
}
