import CompactJSON
import Testing
import TextCoding

/// The header a verifier reads first (`kid`, `alg`) to pick the key: read without trusting
/// the rest of the token.
@Suite struct JWSHeaderReadingTests {
    @Test func readsKidAndAlgAndIgnoresOtherMembers() {
        let header = Base64URL.encode(Array(#"{"typ":"JWT","alg":"ES256","kid":"2026-key","x":[1,{"y":null}]}"#.utf8))
        #expect(JWSHeader(plainHeaderOf: header + ".e30.c2ln") == JWSHeader(kid: "2026-key", alg: "ES256"))
    }

    @Test func missingMembersAreNil() {
        let header = Base64URL.encode(Array("{}".utf8))
        #expect(JWSHeader(plainHeaderOf: header + ".e30.c2ln") == JWSHeader(kid: nil, alg: nil))
    }

    @Test(arguments: ["", "e30", "%%%.e30.c2ln", Base64URL.encode(Array("[]".utf8)) + ".e30.x", Base64URL.encode(Array(#"{"kid":1}"#.utf8)) + ".e30.x"])
    func anythingElseIsNil(_ token: String) {
        #expect(JWSHeader(plainHeaderOf: token) == nil)
    }
}
