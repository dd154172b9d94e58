#if canImport(Glibc)
import Glibc
#endif
import Testing

@testable import ServiceKit

@Suite struct LogLineTests {
    @Test func timesAreUTCISO8601WithOrWithoutMilliseconds() {
        let time = timespec(tv_sec: 1_795_592_533, tv_nsec: 95_000_000)
        var line: [UInt8] = []
        LogLine.appendTime(to: &line, milliseconds: true, now: time)
        #expect(String(decoding: line, as: UTF8.self) == "2026-11-25T07:42:13.095Z")
        line = []
        LogLine.appendTime(to: &line, milliseconds: false, now: time)
        #expect(String(decoding: line, as: UTF8.self) == "2026-11-25T07:42:13Z")
    }

    @Test func jsonStringsEscapeQuotesBackslashesAndControlCharacters() {
        var line: [UInt8] = []
        LogLine.appendJSONString("a\"b\\c\nd\u{1}é", to: &line)
        #expect(String(decoding: line, as: UTF8.self) == #""a\"b\\c\nd\u0001é""#)
    }
}
