import Foundation
import TextCoding
import TestSupport
import Testing
import TokensAPI
import _CryptoExtras

@testable import TokenService

/// `tokens.verify` keeps the rules behind the signature the gateway keeps (SignedTokenRules,
/// issue 49): a token re-signed with the service's own key after a change to its header or
/// claims is refused for the change, and the unchanged one, re-signed the same way, verifies.
@Suite struct VerifyConformanceTests {
    @Test func whatTheGatewayRefusesBehindTheSignatureTokensRefusesToo() async throws {
        try await TokensHarness.run { tokens in
            let pair = try await tokens.issue()
            let parts = pair.accessToken.split(separator: ".").map(String.init)
            let header = String(decoding: try #require(Base64URL.decode(parts[0])), as: UTF8.self)
            let claims = String(decoding: try #require(Base64URL.decode(parts[1])), as: UTF8.self)
            let pem = try #require(
                try FileManager.default.contentsOfDirectory(at: tokens.keys, includingPropertiesForKeys: nil).first { $0.pathExtension == "pem" })
            let key = try _RSA.Signing.PrivateKey(pemRepresentation: String(contentsOf: pem, encoding: .utf8))
            func signed(_ header: String, _ claims: String) throws -> String {
                let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
                return input + "." + Base64URL.encode(try key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5).rawRepresentation)
            }
            func adding(_ member: String, to object: String) -> String { String(object.dropLast()) + member + "}" }

            // The control: the issued token's own header and claims, signed again here.
            #expect(try await tokens.verify(try signed(header, claims)).sessionID == pair.sessionID)
            let now = Int(Date().timeIntervalSince1970)
            let refused = [
                (adding(#","crit":["x-unknown"],"x-unknown":1"#, to: header), claims),
                (header, adding(#","sub":"\#(UUID().uuidString.lowercased())""#, to: claims)),
                (header, adding(#","nbf":\#(now + 3600)"#, to: claims)),
                (header, claims.replacingOccurrences(of: #""exp":"#, with: #""exp":1e300,"x":"#)),
            ]
            for (header, claims) in refused {
                let token = try signed(header, claims)
                #expect(await tokens.errorCode { try await tokens.verify(token) } == .unauthorized, "\(header) \(claims)")
            }
        }
    }
}
