import Crypto
import DPoP
import Foundation
import Testing
import TestSupport
import TextCoding

/// A DPoP proof is read as RFC 9449 section 4.3 says: ES256 by the public key in its header,
/// `typ` dpop+jwt, the four claims, and nothing else accepted.
@Suite struct DPoPProofTests {
    let maker = DPoPProofMaker()
    let url = "https://api.example.com/api/v1/auth/me"
    let now = Date().timeIntervalSince1970

    func read(_ proof: String) throws(DPoPProofError) -> DPoPProof {
        try DPoPProof(proof, now: self.now, leeway: 30)
    }

    func refusal(_ proof: String) -> DPoPProofError? {
        do {
            _ = try self.read(proof)
            return nil
        } catch {
            return error
        }
    }

    @Test func goodProofGivesItsClaimsAndTheRFC7638Thumbprint() throws {
        let proof = try self.read(self.maker.proof(method: "GET", url: self.url, accessToken: "token", jti: "j-1"))
        #expect(proof.thumbprint == self.maker.thumbprint)
        #expect(proof.thumbprint.utf8.count == 43)
        #expect(proof.tokenID == "j-1")
        #expect(proof.method == "GET")
        #expect(proof.targetURI == self.url)
        #expect(proof.issuedAt == Int64(self.now))
        #expect(proof.accessTokenHash == DPoPProof.accessTokenHash(of: "token"))
        #expect(proof.accessTokenHash == Base64URL.encode(SHA256.hash(data: Data("token".utf8))))
    }

    @Test func thumbprintOfTheRFC7638Spelling() {
        // The members in order, no whitespace: what any other implementation hashes.
        let x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
        let y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
        let json = #"{"crv":"P-256","kty":"EC","x":"\#(x)","y":"\#(y)"}"#
        #expect(DPoPPublicKey.thumbprint(x: x, y: y) == Base64URL.encode(SHA256.hash(data: Data(json.utf8))))
    }

    @Test func algorithmsOtherThanES256AreRefused() {
        let secret = Array(self.maker.key.publicKey.rawRepresentation)
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, signing: .none)) == .unsupportedAlgorithm)
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, signing: .hs256(secret: secret))) == .unsupportedAlgorithm)
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, header: { $0["alg"] = "RS256" })) == .unsupportedAlgorithm)
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, header: { $0["alg"] = nil })) == .unsupportedAlgorithm)
    }

    @Test func aPrivateKeyInTheJWKIsRefused() {
        var jwk = self.maker.jwk
        jwk["d"] = Base64URL.encode(self.maker.key.rawRepresentation)
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, header: { $0["jwk"] = jwk })) == .badKey("holds a private key (d)"))
    }

    @Test func keysThatAreNotPublicP256PointsAreRefused() {
        var offCurve = self.maker.jwk
        offCurve["y"] = offCurve["x"]
        var short = self.maker.jwk
        short["x"] = "AAAA"
        for jwk: Any in [offCurve, short, ["kty": "RSA", "n": "AQAB", "e": "AQAB"], "key", ["kty": "EC", "crv": "P-384"]] {
            guard case .badKey? = self.refusal(self.maker.proof(method: "GET", url: self.url, header: { $0["jwk"] = jwk })) else {
                Issue.record("accepted jwk \(jwk)")
                continue
            }
        }
        guard case .badKey? = self.refusal(self.maker.proof(method: "GET", url: self.url, header: { $0["jwk"] = nil })) else {
            Issue.record("accepted a proof without a jwk")
            return
        }
    }

    @Test func aSignatureByAnotherKeyOrOfOtherBytesIsRefused() {
        let other = DPoPProofMaker()
        let mine = self.maker.proof(method: "GET", url: self.url)
        let theirs = other.proof(method: "GET", url: self.url)
        let swapped = mine.split(separator: ".")[0...1].joined(separator: ".") + "." + theirs.split(separator: ".")[2]
        #expect(self.refusal(swapped) == .badSignature)
        #expect(self.refusal(mine.split(separator: ".")[0...1].joined(separator: ".") + ".AAAA") == .badSignature)
    }

    @Test func typeAndClaimsAreRequired() {
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, header: { $0["typ"] = "JWT" })) == .wrongType)
        for name in ["jti", "htm", "htu", "iat"] {
            #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, claims: { $0[name] = nil })) == .missingClaim(name))
        }
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, claims: { $0["jti"] = 7 })) == .missingClaim("jti"))
        #expect(self.refusal(self.maker.proof(method: "GET", url: self.url, claims: { $0["ath"] = 7 })) == .missingClaim("ath"))
        guard case .malformed? = self.refusal(self.maker.proof(method: "GET", url: self.url, claims: { $0["iat"] = "1700000000" })) else {
            Issue.record("accepted an iat that is a string")
            return
        }
    }

    @Test func malformedAndOversizeProofsAreRefused() {
        // Empty objects are a well-formed JWS: refused for what they lack.
        #expect(self.refusal("e30.e30.") == .wrongType)
        for text in ["", "a.b", "a.b.c.d", "e30.W10.", "e30.e30", String(repeating: "A", count: 5000)] {
            guard case .malformed? = self.refusal(text) else {
                Issue.record("accepted \(text.prefix(20))")
                continue
            }
        }
    }
}
