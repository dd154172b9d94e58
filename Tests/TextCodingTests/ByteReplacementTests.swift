import Testing
import TextCoding

/// Replacing by UTF-8 bytes: a secret is taken out of a message and a LIKE pattern escaped
/// wherever the bytes are, a combining mark after them or not.
@Suite struct ByteReplacementTests {
    @Test func everyOccurrenceGoesLeftToRightWithoutOverlapping() {
        #expect("a_b_c".replacingBytes(of: "_", with: "\\_") == "a\\_b\\_c")
        #expect("aaaa".replacingBytes(of: "aa", with: "b") == "bb")
        #expect("aaa".replacingBytes(of: "aa", with: "b") == "ba")
        #expect("none here".replacingBytes(of: "xyz", with: "***") == "none here")
        #expect("".replacingBytes(of: "x", with: "y") == "")
        #expect("keep".replacingBytes(of: "", with: "y") == "keep")
        #expect("p4ss at the end: p4ss".replacingBytes(of: "p4ss", with: "***") == "*** at the end: ***")
    }

    @Test func aCombiningMarkAfterTheBytesDoesNotHideThem() {
        // "_" followed by U+0301 is one Character: the standard library's `replacing` skips it.
        #expect("a_\u{301}b".replacingBytes(of: "_", with: "\\_") == "a\\_\u{301}b")
        #expect("password=s3cr3t\u{301} failed".replacingBytes(of: "s3cr3t", with: "***") == "password=***\u{301} failed")
        #expect("é".replacingBytes(of: "é", with: "e") == "e")
    }
}
