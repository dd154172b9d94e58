import Foundation
@testable import IdentityService
import Testing

/// The forms identity posts to Apple (client secrets, codes, tokens) are encoded as
/// `application/x-www-form-urlencoded`: every byte but ASCII letters, digits and `-._~` escaped.
@Suite struct FormEncodingTests {
    @Test func valuesAreEscapedAsFoundationEscapesThemWithTheUnreservedCharacters() {
        var unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        unreserved.insert(charactersIn: "-._~")
        let values = ["eyJhbGciOiJFUzI1NiJ9.e30.sig-_", "a b+c/d=e&f", "100%", "ü é", "🇫🇷", "", "\n\t\"'<>"]
        for value in values {
            let expected = value.addingPercentEncoding(withAllowedCharacters: unreserved)!
            #expect(ProviderHTTP.formEncode([("v", value)]) == "v=\(expected)")
        }
        #expect(ProviderHTTP.formEncode([("grant_type", "refresh_token"), ("token", "a+b")]) == "grant_type=refresh_token&token=a%2Bb")
    }
}
