import Foundation
import Testing
import TextCoding

/// The hand-written base64url agrees with Foundation's base64 and refuses what JOSE forbids.
@Suite struct Base64URLTests {
    @Test func encodingMatchesFoundationWithoutPaddingAndDecodesBack() {
        var generator = SystemRandomNumberGenerator()
        for length in 0...70 {
            let bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
            let expected = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Base64URL.encode(bytes) == expected)
            #expect(Base64URL.decode(expected) == bytes)
        }
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
    }

    @Test(arguments: ["QQ==", "QQ=", "a+b/", "A", "AAAAA", "AB", "AAB", "a b", "é"])
    func paddingForeignCharactersImpossibleLengthsAndStrayBitsAreRefused(_ text: String) {
        #expect(Base64URL.decode(text) == nil)
    }
}
