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
        self.write(event)
    }

    /// One object, then a newline: the handler's own members (`label`, `level`, `message`,
    /// `source`, `time`) and `fields` (`LogFields.merged`) sorted by key together; an own member
    /// wins over a field of its name.
    func line(
        level: Logger.Level, message: String, source: String, fields: [LogField], time: timespec = LogLine.now()
    ) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        line.append(UInt8(ascii: "{"))
        var nextOwn = 0
        // Writes the own members sorting before `key` (all that are left when nil).
        func appendOwnMembers(before key: String?) {
            while nextOwn < Self.ownMembers.count, key.map({ Self.ownMembers[nextOwn] < $0 }) ?? true {
                if line.count > 1 { line.append(UInt8(ascii: ",")) }
                LogLine.appendJSONString(Self.ownMembers[nextOwn], to: &line)
                line.append(UInt8(ascii: ":"))
                switch nextOwn {
                case 0: LogLine.appendJSONString(self.label, to: &line)
                case 1: LogLine.appendJSONString(level.rawValue, to: &line)
                case 2: LogLine.appendJSONString(message, to: &line)
                case 3: LogLine.appendJSONString(source, to: &line)
                default:
                    line.append(UInt8(ascii: "\""))
                    LogLine.appendTime(to: &line, milliseconds: true, now: time)
                    line.append(UInt8(ascii: "\""))
                }
                nextOwn += 1
            }
        }
        for field in fields {
            appendOwnMembers(before: field.key)
            if nextOwn < Self.ownMembers.count, Self.ownMembers[nextOwn] == field.key { continue }
            if line.count > 1 { line.append(UInt8(ascii: ",")) }
            LogLine.appendJSONString(field.key, to: &line)
            line.append(UInt8(ascii: ":"))
            LogLine.appendJSONString(field.value, to: &line)
        }
        appendOwnMembers(before: nil)
        line.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
        return line
    }

    /// The members every line has, in key order (`line` writes them by this index).
    private static let ownMembers = ["label", "level", "message", "source", "time"]
}

extension JSONLogHandler: FieldsLogHandler {}

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
        self.write(event)
    }

    /// `<time> <level> <label>: <key=value ...> [<source>] <message>\n`, `fields`
    /// (`LogFields.merged`: sorted by key) as the `key=value` pairs, written straight into the
    /// bytes (the gateway writes one per request).
    func line(
        level: Logger.Level, message: String, source: String, fields: [LogField], time: timespec = LogLine.now()
    ) -> [UInt8] {
        var line: [UInt8] = []
        line.reserveCapacity(256)
        LogLine.appendTime(to: &line, milliseconds: false, now: time)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: level.rawValue.utf8)
        line.append(UInt8(ascii: " "))
        line.append(contentsOf: self.label.utf8)
        line.append(UInt8(ascii: ":"))
        for field in fields {
            line.append(UInt8(ascii: " "))
            line.append(contentsOf: field.key.utf8)
            line.append(UInt8(ascii: "="))
            line.append(contentsOf: field.value.utf8)
        }
        line.append(contentsOf: " [".utf8)
        line.append(contentsOf: source.utf8)
        line.append(contentsOf: "] ".utf8)
        line.append(contentsOf: message.utf8)
        line.append(0x0A)
        return line
    }
}

extension TextLogHandler: FieldsLogHandler {}

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
