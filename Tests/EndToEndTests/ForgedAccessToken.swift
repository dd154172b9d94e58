import Foundation
import JWTKit
import TestSupport
import TextCoding

extension Stack {
    /// `token`'s claims changed by `change`, signed with the stack's own signing key (the one
    /// RSA key in its folder) under the same `kid`: a token that passes the signature check,
    /// so that a refusal can only come from the claims.
    func forgeAccessToken(like token: String, _ change: (inout TestAccessClaims) -> Void) async throws -> String {
        let parts = token.split(separator: ".").map(String.init)
        guard parts.count == 3, let payload = Base64URL.decode(parts[1]).map({ Data($0) }),
            let json = try JSONSerialization.jsonObject(with: payload) as? [String: Any],
            let iss = json["iss"] as? String, let sub = json["sub"] as? String, let sid = json["sid"] as? String,
            let iat = json["iat"] as? Int, let exp = json["exp"] as? Int, let jti = json["jti"] as? String,
            let aud = (json["aud"] as? String) ?? (json["aud"] as? [String])?.first
        else { throw StackError.unexpected("not an access token: \(token)") }
        var claims = TestAccessClaims(iss: iss, aud: aud, sub: sub, sid: sid, iat: iat, exp: exp, jti: jti, adm: json["adm"] as? Bool)
        change(&claims)
        let pems = try FileManager.default.contentsOfDirectory(atPath: self.keysFolder.path).filter { $0.hasSuffix(".pem") }
        guard pems.count == 1 else { throw StackError.unexpected("expected one signing key, found \(pems)") }
        let pem = try String(contentsOf: self.keysFolder.appendingPathComponent(pems[0]), encoding: .utf8)
        let kid = JWKIdentifier(string: try accessTokenKid(token))
        let keys = await JWTKeyCollection().add(rsa: try Insecure.RSA.PrivateKey(pem: pem), digestAlgorithm: .sha256, kid: kid)
        return try await keys.sign(claims, kid: kid)
    }
}
