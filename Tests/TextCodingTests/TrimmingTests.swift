import Foundation
import Testing
import TextCoding

/// The services' trimming (FoundationEssentials has none) agrees with Foundation's for the white
/// space they trim: configuration values, header fields, list entries.
@Suite struct TrimmingTests {
    @Test(arguments: [
        "", " ", "\t\r\n", "value", "  value", "value \t", " \t a b \r\n", "a\u{00A0}", "\u{2003}em\u{2003}", "\u{2028}x\u{2029}", "\r\nx\r\n",
        "é ", " 🇫🇷 ",
    ])
    func whiteSpaceAtEitherEndGoesAsFoundationTrimsIt(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    @Test func theCharactersAPredicatePicksGoAndOnlyAtTheEnds() {
        let quotesAndSpaces: (Character) -> Bool = { $0 == "\"" || $0 == " " }
        #expect("\" 3600\" ".trimming(where: quotesAndSpaces) == "3600")
        #expect("a \"b\" c".trimming(where: quotesAndSpaces) == "a \"b\" c")
        #expect("\"\" ".trimming(where: quotesAndSpaces) == "")
    }
}
