import Foundation
import Testing
import TextCoding

/// `JSONBytes` keeps every byte written in order as it grows, a copy keeps what it held when
/// copied, and `DecimalDigits` spells integers as `String(_:)` does.
@Suite struct JSONBytesTests {
    @Test func bytesWrittenInEveryWayArriveInOrderAcrossGrowth() {
        var bytes = JSONBytes(capacity: 1)
        var expected: [UInt8] = []
        for round in 0..<500 {
            bytes.write(#"{"key":"#)
            expected += Array(#"{"key":"#.utf8)
            let text = Array("value \(round)".utf8)
            text.withUnsafeBufferPointer { bytes.write($0) }
            expected += text
            bytes.write(byte: UInt8(ascii: "}"))
            expected.append(UInt8(ascii: "}"))
            bytes.write(atMost: 8) { out in
                out[0] = UInt8(ascii: ",")
                return 1
            }
            expected.append(UInt8(ascii: ","))
        }
        #expect(bytes.count == expected.count)
        #expect(bytes.array == expected)
        bytes.withUnsafeBytes { #expect(Array($0) == expected) }
    }

    @Test func aCopyKeepsWhatItHeldWhenTheOriginalGrowsOn() {
        var original = JSONBytes(capacity: 64)
        original.write("[1")
        let copy = original
        original.write(",2]")
        var second = copy
        second.write("]")
        #expect(String(decoding: copy.array, as: UTF8.self) == "[1")
        #expect(String(decoding: original.array, as: UTF8.self) == "[1,2]")
        #expect(String(decoding: second.array, as: UTF8.self) == "[1]")
    }

    @Test func aStringEscapedIntoItIsTheEscapersOutput() throws {
        let text = "quote \" backslash \\ line\n naïve ✓"
        var bytes = JSONBytes()
        JSONString.write(text, to: &bytes)
        var array: [UInt8] = []
        JSONString.write(text, to: &array)
        #expect(bytes.array == array)
        #expect(try JSONSerialization.jsonObject(with: Data(bytes.array), options: [.fragmentsAllowed]) as? String == text)
    }

    @Test(arguments: [0, 1, -1, 9, 10, -10, 42, 1_795_317_839_123, Int64.max, Int64.min, Int64.min + 1, 1_000_000_000_000_000_000])
    func integersAreSpelledAsStringSpellsThem(_ value: Int64) {
        var bytes = JSONBytes(capacity: 1)
        bytes.write(atMost: DecimalDigits.maximumCount) { DecimalDigits.write(value, to: $0) }
        #expect(String(decoding: bytes.array, as: UTF8.self) == String(value))
    }
}
