#if canImport(Glibc)
import Glibc
#endif
import Logging
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

@Suite struct TextLogLineTests {
    private static let time = timespec(tv_sec: 1_795_592_533, tv_nsec: 95_000_000)

    private func event(_ metadata: Logger.Metadata?, level: Logger.Level = .info) -> LogEvent {
        LogEvent(
            level: level, message: "request", metadata: metadata, source: "Gateway", file: #fileID, function: #function,
            line: #line)
    }

    /// `<time> <level> <label>: <key=value ...> [<source>] <message>`, the keys of the handler,
    /// the provider and the event merged (later ones win) and sorted.
    @Test func metadataIsMergedSortedAndWrittenAsKeyEqualsValue() {
        var handler = TextLogHandler(label: "gateway")
        handler[metadataKey: "request.id"] = "r-1"
        handler[metadataKey: "http.status"] = "0"
        handler.metadataProvider = Logger.MetadataProvider { ["trace": "t"] }
        let line = handler.line(
            for: self.event(["http.status": "200", "http.path": "/api/v1/me", "n": .stringConvertible(42), "list": ["a", "b"]]),
            time: Self.time)
        #expect(
            String(decoding: line, as: UTF8.self)
                == "2026-11-25T07:42:13Z info gateway: http.path=/api/v1/me http.status=200 list=[\"a\", \"b\"] n=42 request.id=r-1 trace=t [Gateway] request\n")
    }

    /// One object: the handler's own members (label, level, message, source, time) and the
    /// merged metadata, sorted by key together; an own member wins over metadata of its name.
    @Test func jsonLinesSortOwnMembersAndMetadataTogether() {
        var handler = JSONLogHandler(label: "gateway")
        handler[metadataKey: "request.id"] = "r-1"
        handler[metadataKey: "http.status"] = "0"
        handler.metadataProvider = Logger.MetadataProvider { ["trace": "t", "http.status": "1"] }
        let line = handler.line(
            for: self.event(["http.status": "200", "level": "spoofed", "zeta": "z", "a.b": "x\"y"]), time: Self.time)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"a.b":"x\"y","http.status":"200","label":"gateway","level":"info","message":"request","request.id":"r-1","#
                + #""source":"Gateway","time":"2026-11-25T07:42:13.095Z","trace":"t","zeta":"z"}"# + "\n")
        let bare = JSONLogHandler(label: "tokens").line(for: self.event(nil, level: .warning), time: Self.time)
        #expect(
            String(decoding: bare, as: UTF8.self)
                == #"{"label":"tokens","level":"warning","message":"request","source":"Gateway","time":"2026-11-25T07:42:13.095Z"}"# + "\n")
    }

    @Test func aLineWithoutMetadataHasNoFields() {
        let line = TextLogHandler(label: "tokens").line(for: self.event(nil, level: .warning), time: Self.time)
        #expect(String(decoding: line, as: UTF8.self) == "2026-11-25T07:42:13Z warning tokens: [Gateway] request\n")
    }
}
