import Foundation
import Testing
import TextCoding

/// The services' trimming (FoundationEssentials has none) agrees with Foundation's, scalar for
/// scalar: configuration values, header fields and list entries read as they were read before.
@Suite struct TrimmingTests {
    static let samples = [
        "", " ", "\t\r\n", "value", "  value", "value \t", " \t a b \r\n", "a\u{00A0}", "\u{2003}em\u{2003}", "\u{2028}x\u{2029}", "\r\nx\r\n",
        "é ", " 🇫🇷 ", "\u{0C}::1", "::1\u{0B}", "x\u{85}", " \u{301}x", "x \u{301}", "\u{3000}x\u{1680}", "\u{200B}x",
    ]

    @Test(arguments: samples)
    func spacesAndTabsGoAsFoundationTrimsWhitespaces(_ text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(Substring(text).trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
    }

    @Test(arguments: samples)
    func lineEndsToGoAsFoundationTrimsWhitespacesAndNewlines(_ text: String) {
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Every scalar of the Basic Multilingual Plane (no white space lies beyond it), at both ends.
    @Test func everyScalarIsTrimmedOrKeptAsFoundationDoes() {
        var differences: [String] = []
        for value in 0...0xFFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = "\(scalar)x\(scalar)"
            if text.trimmingWhitespace() != text.trimmingCharacters(in: .whitespaces)
                || text.trimmingWhitespaceAndNewlines() != text.trimmingCharacters(in: .whitespacesAndNewlines)
            {
                differences.append(String(value, radix: 16))
            }
        }
        #expect(differences.isEmpty, "U+\(differences.joined(separator: ", U+"))")
    }

    @Test func theScalarsAPredicatePicksGoAndOnlyAtTheEnds() {
        let quotesAndSpaces: (Unicode.Scalar) -> Bool = { $0 == "\"" || $0 == " " }
        #expect("\" 3600\" ".trimming(where: quotesAndSpaces) == "3600")
        #expect("a \"b\" c".trimming(where: quotesAndSpaces) == "a \"b\" c")
        #expect("\"\" ".trimming(where: quotesAndSpaces) == "")
    }
}
