import Crypto
import DPoP
import Foundation
import TextCoding

/// A DPoP proof as the gateway reads it (`DPoPProof`, RFC 9449): any bytes as a whole proof,
/// or, for an input that starts with `{`, the input as the claims of a proof the target signs
/// with its own key (so that the fuzzer reaches the claims behind a good signature).
/// Properties: nothing traps; a proof the parser accepts has a signature that verifies, read
/// apart from the product (Foundation's JSON and base64, the key rebuilt from the `jwk`), by the
/// key whose RFC 7638 thumbprint (computed with Foundation's sorted-keys encoder) is the one
/// the parser gives, `alg` ES256, `typ` dpop+jwt and no `d`; and its `jti`, `htm`, `htu`,
/// `iat` and `ath` are what Foundation reads in the claims.
enum DPoPProofFuzzing {
    static let key = P256.Signing.PrivateKey()
    static let header: String = {
        let raw = Array(key.publicKey.rawRepresentation)
        let jwk = #"{"kty":"EC","crv":"P-256","x":""# + Base64URL.encode(raw[0..<32]) + #"","y":""# + Base64URL.encode(raw[32...]) + #""}"#
        return Base64URL.encode(Array((#"{"typ":"dpop+jwt","alg":"ES256","jwk":"# + jwk + "}").utf8))
    }()

    static func run(_ bytes: UnsafeRawBufferPointer) {
        let text: String
        if bytes.first == UInt8(ascii: "{") {
            let input = Self.header + "." + Base64URL.encode(bytes)
            guard let signature = try? Self.key.signature(for: Array(input.utf8)) else { return }
            text = input + "." + Base64URL.encode(signature.rawRepresentation)
        } else {
            text = String(decoding: bytes, as: UTF8.self)
        }
        // Times are read as they are: `now` far from any `iat` only matters to `nbf`.
        guard let proof = try? DPoPProof(text, now: 1_800_000_000, leeway: 60) else { return }
        Self.expectVerifiesApart(proof, text: text)
    }

    /// The independent reading of an accepted proof.
    static func expectVerifiesApart(_ proof: DPoPProof, text: String) {
        let segments = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        FuzzCheck.require(segments.count == 3, "accepted a proof of \(segments.count) segments")
        guard let headerBytes = Self.foundationBase64URL(segments[0]), let claimsBytes = Self.foundationBase64URL(segments[1]),
            let signatureBytes = Self.foundationBase64URL(segments[2])
        else {
            FuzzCheck.require(false, "accepted a proof Foundation's base64 cannot read: \(text)")
            return
        }
        guard let header = FoundationJSON.strictObject(headerBytes), let claims = FoundationJSON.strictObject(claimsBytes) else {
            // Foundation refuses numbers it cannot hold in members the parser steps over.
            FuzzCheck.require(
                ProviderTokenHeaderFuzzing.holdsANumberFoundationRefuses(headerBytes)
                    || ProviderTokenHeaderFuzzing.holdsANumberFoundationRefuses(claimsBytes),
                "accepted a proof whose header or claims Foundation cannot read: \(text)")
            return
        }
        FuzzCheck.require(header["typ"] as? String == "dpop+jwt" && header["alg"] as? String == "ES256", "typ/alg \(header)")
        guard let jwk = header["jwk"] as? [String: Any], jwk["d"] == nil, jwk["kty"] as? String == "EC", jwk["crv"] as? String == "P-256",
            let x = jwk["x"] as? String, let y = jwk["y"] as? String,
            let xBytes = Self.foundationBase64URL(x), let yBytes = Self.foundationBase64URL(y),
            let key = try? P256.Signing.PublicKey(rawRepresentation: xBytes + yBytes)
        else {
            FuzzCheck.require(false, "accepted a jwk that is not a public P-256 key: \(header)")
            return
        }
        let required = ["crv": "P-256", "kty": "EC", "x": x, "y": y]
        let thumbprintJSON = try! JSONSerialization.data(withJSONObject: required, options: [.sortedKeys, .withoutEscapingSlashes])
        let thumbprint = Data(SHA256.hash(data: thumbprintJSON)).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        FuzzCheck.require(thumbprint == proof.thumbprint, "thumbprint \(proof.thumbprint), Foundation's \(thumbprint)")
        let signed = Data((segments[0] + "." + segments[1]).utf8)
        FuzzCheck.require(
            signatureBytes.count == 64 && (try? P256.Signing.ECDSASignature(rawRepresentation: signatureBytes))
                .map { key.isValidSignature($0, for: signed) } == true,
            "accepted a signature that does not verify: \(text)")
        FuzzCheck.require(claims["jti"] as? String == proof.tokenID, "jti \(proof.tokenID), Foundation \(String(describing: claims["jti"]))")
        FuzzCheck.require(claims["htm"] as? String == proof.method, "htm \(proof.method), Foundation \(String(describing: claims["htm"]))")
        FuzzCheck.require(claims["htu"] as? String == proof.targetURI, "htu \(proof.targetURI), Foundation \(String(describing: claims["htu"]))")
        FuzzCheck.require(
            (claims["iat"] as? NSNumber)?.int64Value == proof.issuedAt, "iat \(proof.issuedAt), Foundation \(String(describing: claims["iat"]))")
        FuzzCheck.require(claims["ath"] as? String == proof.accessTokenHash, "ath \(String(describing: proof.accessTokenHash))")
    }

    /// Unpadded base64url read with Foundation's base64 decoder.
    static func foundationBase64URL(_ text: String) -> [UInt8]? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map(Array.init)
    }
}
