import Foundation
import JWTKit
import Logging
import Testing

@testable import IdentityService

/// A provider's key set keeps the public part of each key it takes: a private part published in
/// it is ignored, never read (swift-crypto stops the process on a private exponent that does not
/// fit the modulus; the `jwks` fuzz target found this set).
@Suite struct ProviderKeySetTests {
    static let modulus = "q7oGVnpz9VwcHXgCAGz71gVYGmhotNG-KdtXh37uMWp-vr1dTtRhqFNngZhLk7c36YfZV4vrmMlbzIT7wgpTIcjoh-9AaHhrLP56h8PHypVdtrPzQAGvKKzQ"

    static func keySet(_ key: String) async throws -> ProviderKeySet {
        let jwks = try JSONDecoder().decode(JWKS.self, from: Data(#"{"keys":[\#(key)]}"#.utf8))
        return await ProviderKeySet.make(from: jwks, expiresAt: Date(), logger: Logger(label: "test"))
    }

    @Test func aPrivateExponentInAPublishedKeyIsIgnored() async throws {
        let withPrivatePart = try await Self.keySet(#"{"kty":"RSA","kid":"k","n":"\#(Self.modulus)","e":"AQAB","d":"AQ"}"#)
        let publicOnly = try await Self.keySet(#"{"kty":"RSA","kid":"k","n":"\#(Self.modulus)","e":"AQAB"}"#)
        #expect(withPrivatePart.algorithms == publicOnly.algorithms)
    }
}
