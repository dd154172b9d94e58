#if canImport(Glibc)
import Glibc
#endif
import Logging

/// Writes one JSON object per line to standard output (through `LogOutput`, which gathers
/// lines below `warning` for up to 10 ms): time, level, label, message, source and the
/// flattened metadata (dotted keys as given). For production log shipping.
public struct JSONLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        LogOutput.standard.write(self.line(for: event), immediately: event.level >= .warning)
    }

    /// The line of `event` at `time`: one object, members sorted by key, then a newline.
    func line(for event: LogEvent, time: timespec = LogLine.now()) -> [UInt8] {
        var fields: [String: String] = [:]
        for (key, value) in event.mergedMetadata(self.metadata, self.metadataProvider) { fields[key] = value.text }
        fields["level"] = event.level.rawValue
        fields["label"] = self.label
        fields["message"] = "\(event.message)"
        fields["source"] = event.source
        fields["time"] = nil
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(UInt8(ascii: "{"))
        var timeWritten = false
        for (key, value) in fields.sorted(by: { $0.key < $1.key }) {
            if !timeWritten, key > "time" {
                Self.appendTime(time, to: &line)
                timeWritten = true
            }
            if line.count > 1 { line.append(UInt8(ascii: ",")) }
            LogLine.appendJSONString(key, to: &line)
            line.append(UInt8(ascii: ":"))
            LogLine.appendJSONString(value, to: &line)
        }
        if !timeWritten { Self.appendTime(time, to: &line) }
        line.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
        return line
    }

    /// `"time":"…"` in its sorted place, with milliseconds.
    private static func appendTime(_ time: timespec, to line: inout [UInt8]) {
        if line.count > 1 { line.append(UInt8(ascii: ",")) }
        line.append(contentsOf: #""time":""#.utf8)
        LogLine.appendTime(to: &line, milliseconds: true, now: time)
        line.append(UInt8(ascii: "\""))
    }
}

/// Writes one line per event to standard output (through `LogOutput`), laid out as swift-log's `StreamLogHandler`
/// (`<time> <level> <label>: <key=value ...> [<source>] <message>`), but formats metadata
/// only when a line is written: setting metadata (a request id per request) costs nothing more
/// than the dictionary update, where `StreamLogHandler` formats all of it again on every change.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    private let label: String

    public init(label: String) {
        self.label = label
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        LogOutput.standard.write(self.line(for: event), immediately: event.level >= .warning)
    }

    /// The line of `event` at `time`: `<time> <level> <label>: <key=value ...> [<source>] <message>\n`,
    /// metadata sorted by key, written straight into the bytes (the gateway writes one per request).
    func line(for event: LogEvent, time: timespec = LogLine.now()) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        LogLine.appendTime(to: &line, milliseconds: false, now: time)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: event.level.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: self.label.utf8)
        line.append(UInt8(ascii: ":"))
        for (key, value) in event.mergedMetadata(self.metadata, self.metadataProvider).sorted(by: { $0.key < $1.key }) {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: value.text.utf8)
        }
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: event.source.utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: event.message.description.utf8)
        line.append(0x0A)
        return line
    }
}

extension LogEvent {
    /// The handler's metadata, then the provider's, then the event's own (later ones win).
    /// Gathered into one array rather than merged into a dictionary: a line has a handful of
    /// keys, and the gateway writes one per request.
    func mergedMetadata(_ handler: Logger.Metadata, _ provider: Logger.MetadataProvider?) -> [(key: String, value: Logger.MetadataValue)] {
        let provided = provider?.get() ?? [:]
        let own = self.metadata ?? [:]
        var pairs: [(key: String, value: Logger.MetadataValue)] = []
        pairs.reserveCapacity(handler.count + provided.count + own.count)
        for (key, value) in handler where (provided.isEmpty || provided[key] == nil) && own[key] == nil { pairs.append((key, value)) }
        for (key, value) in provided where own[key] == nil { pairs.append((key, value)) }
        for (key, value) in own { pairs.append((key, value)) }
        return pairs
    }
}

extension Logger.MetadataValue {
    /// A string as it is, anything else as `description` writes it.
    var text: String {
        if case .string(let text) = self { return text }
        return self.description
    }
}

/// Installs the process-wide log handler once, at start.
public enum LoggingSetup {
    public static func bootstrap(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = TextLogHandler(label: label)
                handler.logLevel = level
                return handler
            case .json:
                var handler = JSONLogHandler(label: label)
                handler.logLevel = level
                return handler
            }
        }
    }
}
