#if canImport(Glibc)
import Glibc
#endif
import Logging
import Synchronization
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

/// `Logger.log(level:_:fields:)`: the per-request line written from text fields, the same line
/// the metadata path writes.
@Suite struct FieldsLogLineTests {
    private static let time = timespec(tv_sec: 1_795_592_533, tv_nsec: 95_000_000)
    private static let fields: KeyValuePairs<String, String> = [
        "http.method": "GET", "http.path": "/api/v1/me", "http.status": "200", "level": "spoofed", "request.id": "own",
    ]

    private func handlerMetadata<Handler: LogHandler>(_ handler: inout Handler) {
        handler[metadataKey: "request.id"] = "r-1"
        handler[metadataKey: "zeta"] = .stringConvertible(7)
        handler.metadataProvider = Logger.MetadataProvider { ["trace": "t", "http.status": "1"] }
    }

    private func event(level: Logger.Level = .info) -> LogEvent {
        var metadata = Logger.Metadata()
        for (key, value) in Self.fields { metadata[key] = .string(value) }
        return LogEvent(level: level, message: "request", metadata: metadata, source: "Gateway", file: #fileID, function: #function, line: #line)
    }

    @Test func textLinesFromFieldsEqualTheMetadataPath() {
        var handler = TextLogHandler(label: "gateway")
        self.handlerMetadata(&handler)
        let fields = LogFields.merged(handler: handler.metadata, provider: handler.metadataProvider, own: Self.fields)
        let direct = handler.line(level: .info, message: "request", source: "Gateway", fields: fields, time: Self.time)
        #expect(direct == handler.line(for: self.event(), time: Self.time))
        #expect(
            String(decoding: direct, as: UTF8.self)
                == "2026-11-25T07:42:13Z info gateway: http.method=GET http.path=/api/v1/me http.status=200 level=spoofed request.id=own trace=t zeta=7 [Gateway] request\n")
    }

    @Test func jsonLinesFromFieldsEqualTheMetadataPath() {
        var handler = JSONLogHandler(label: "gateway")
        self.handlerMetadata(&handler)
        let fields = LogFields.merged(handler: handler.metadata, provider: handler.metadataProvider, own: Self.fields)
        let direct = handler.line(level: .warning, message: "request", source: "Gateway", fields: fields, time: Self.time)
        #expect(direct == handler.line(for: self.event(level: .warning), time: Self.time))
        #expect(
            String(decoding: direct, as: UTF8.self)
                == #"{"http.method":"GET","http.path":"/api/v1/me","http.status":"200","label":"gateway","level":"warning","#
                + #""message":"request","request.id":"own","source":"Gateway","time":"2026-11-25T07:42:13.095Z","trace":"t","zeta":"7"}"#
                + "\n")
    }

    /// Fields after every own member (`time` is the last) and a field named as one.
    @Test func jsonOwnMembersComeFirstWhenEveryFieldSortsAfterThem() {
        let fields = LogFields.merged(handler: [:], provider: nil, own: ["zz": "1", "time": "spoofed", "u": "2"] as KeyValuePairs)
        let line = JSONLogHandler(label: "tokens").line(level: .info, message: "m", source: "S", fields: fields, time: Self.time)
        #expect(
            String(decoding: line, as: UTF8.self)
                == #"{"label":"tokens","level":"info","message":"m","source":"S","time":"2026-11-25T07:42:13.095Z","u":"2","zz":"1"}"# + "\n")
    }

    @Test func loggerHandsOurHandlersTheMergedFieldsAndTheModule() {
        let recorder = FieldsRecorder()
        var logger = Logger(label: "gateway") { _ in RecordingHandler<ThroughFields>(recorder: recorder) }
        logger[metadataKey: "request.id"] = "r-1"
        logger.logLevel = .info
        logger.log(level: .info, "request", fields: ["http.status": "200", "http.method": "GET"])
        logger.log(level: .debug, "not written", fields: ["a": "b"])
        let lines = recorder.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.message == "request")
        #expect(lines.first?.throughFields == true)
        #expect(lines.first?.source == "ServiceKitTests")
        #expect(lines.first?.fields.map { "\($0.key)=\($0.value)" } == ["http.method=GET", "http.status=200", "request.id=r-1"])
    }

    /// A handler of another library gets the fields as string metadata, through swift-log.
    @Test func otherHandlersGetTheFieldsAsMetadata() {
        let recorder = FieldsRecorder()
        var logger = Logger(label: "gateway") { _ in RecordingHandler<ThroughEvents>(recorder: recorder) }
        logger.logLevel = .warning
        logger.log(level: .info, "below the level", fields: ["a": "b"])
        logger.log(level: .error, "request", fields: ["http.status": "500", "http.path": "/x"])
        let lines = recorder.lines.withLock { $0 }
        #expect(lines.count == 1)
        #expect(lines.first?.throughFields == false)
        #expect(lines.first?.source == "ServiceKitTests")
        #expect(lines.first?.fields.map { "\($0.key)=\($0.value)" } == ["http.path=/x", "http.status=500"])
    }

    @Test func moduleIsTheFileIDsFirstComponent() {
        #expect(Logger.module(fileID: "Gateway/HTTP/RequestIDMiddleware.swift") == "Gateway")
        #expect(Logger.module(fileID: "main.swift") == "n/a")
    }
}

private final class FieldsRecorder: Sendable {
    struct Line { var message: String; var source: String; var fields: [LogField]; var throughFields: Bool }
    let lines = Mutex<[Line]>([])
}

private enum ThroughFields {}
private enum ThroughEvents {}

/// Records what it is asked to log and how: a `FieldsLogHandler` only when `Path` is `ThroughFields`.
private struct RecordingHandler<Path>: LogHandler {
    let recorder: FieldsRecorder
    var logLevel: Logger.Level = .trace
    var metadata: Logger.Metadata = [:]
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }
    func log(event: LogEvent) {
        let fields = (event.metadata ?? [:]).map { ($0.key, $0.value.text) }.sorted { $0.0 < $1.0 }
        self.recorder.lines.withLock {
            $0.append(.init(message: event.message.description, source: event.source, fields: fields, throughFields: false))
        }
    }
}

extension RecordingHandler: FieldsLogHandler where Path == ThroughFields {
    func line(level: Logger.Level, message: String, source: String, fields: [LogField], time: timespec) -> [UInt8] { [] }
    func log(level: Logger.Level, message: String, fields: [LogField], source: String) {
        self.recorder.lines.withLock { $0.append(.init(message: message, source: source, fields: fields, throughFields: true)) }
    }
}

/// The date and time of day are formatted once a second and reused: a line of another second
/// must never get a stale one.
@Suite struct LogLineTimeCacheTests {
    @Test func eachSecondGetsItsOwnText() {
        func text(_ seconds: Int, _ nanoseconds: Int) -> String {
            var line: [UInt8] = []
            LogLine.appendTime(to: &line, milliseconds: true, now: timespec(tv_sec: seconds, tv_nsec: nanoseconds))
            return String(decoding: line, as: UTF8.self)
        }
        #expect(text(1_795_592_533, 95_000_000) == "2026-11-25T07:42:13.095Z")
        #expect(text(1_795_592_533, 999_000_000) == "2026-11-25T07:42:13.999Z")
        #expect(text(1_795_592_534, 0) == "2026-11-25T07:42:14.000Z")
        #expect(text(0, 1_000_000) == "1970-01-01T00:00:00.001Z")
        #expect(text(1_795_592_533, 0) == "2026-11-25T07:42:13.000Z")
        #expect(text(1_795_679_999, 0) == "2026-11-26T07:59:59.000Z")
    }
}
