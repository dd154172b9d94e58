import Foundation
import Testing
import TextCoding

/// Path segments' `%XX` escapes decode as Foundation's `removingPercentEncoding` decodes them,
/// and text that is not valid percent-encoding of UTF-8 is refused the same way.
@Suite struct PercentDecodingTests {
    @Test(arguments: [
        "plain", "", "a%20b", "%2F%2f", "%C3%A9t%C3%A9", "%F0%9F%87%AB%F0%9F%87%B7", "100%25", "é%20ü", "%", "%4", "%zz", "a%2", "%FF", "%C3",
        "%C3%28", "%ED%A0%80", "%00",
    ])
    func escapesDecodeAndBadOnesAreRefusedAsFoundationDoes(_ text: String) {
        #expect(PercentDecoding.decode(text) == text.removingPercentEncoding)
    }
}
