#if canImport(Glibc)
import Glibc
#endif
import Logging

/// One `key=value` of a log line, its value as text.
typealias LogField = (key: String, value: String)

/// A handler that writes a line from fields it is given as text, with no `LogEvent` and no
/// metadata dictionary in between (see `Logger.log(level:_:fields:)`).
protocol FieldsLogHandler: LogHandler {
    /// The line at `time`, newline included; `fields` are the merged ones (`LogFields.merged`).
    func line(level: Logger.Level, message: String, source: String, fields: [LogField], time: timespec) -> [UInt8]
    /// Writes the line: to standard output, through `LogOutput`, unless a handler says otherwise.
    func log(level: Logger.Level, message: String, fields: [LogField], source: String)
}

extension FieldsLogHandler {
    func log(level: Logger.Level, message: String, fields: [LogField], source: String) {
        LogOutput.standard.write(
            self.line(level: level, message: message, source: source, fields: fields, time: LogLine.now()),
            immediately: level >= .warning)
    }

    /// What `log(event:)` writes: the event's line (`line(for:)`, the one the tests read).
    func write(_ event: LogEvent) {
        LogOutput.standard.write(self.line(for: event), immediately: event.level >= .warning)
    }

    /// The line of `event` at `time`.
    func line(for event: LogEvent, time: timespec = LogLine.now()) -> [UInt8] {
        self.line(level: event.level, message: event.message.description, source: event.source, fields: self.fields(of: event), time: time)
    }

    /// The handler's metadata, the provider's and the event's own, merged (`LogFields.merged`).
    private func fields(of event: LogEvent) -> [LogField] {
        var own: [LogField] = []
        own.reserveCapacity(event.metadata?.count ?? 0)
        for (key, value) in event.metadata ?? [:] { own.append((key, value.text)) }
        return LogFields.merged(handler: self.metadata, provider: self.metadataProvider, own: own)
    }
}

enum LogFields {
    /// The handler's metadata, then the provider's, then `own` (later ones win), as one list
    /// sorted by key: the fields of a line, for both ways a line is logged.
    static func merged(
        handler: Logger.Metadata, provider: Logger.MetadataProvider?, own: some Collection<LogField>
    ) -> [LogField] {
        let provided = provider?.get() ?? [:]
        var fields: [LogField] = []
        fields.reserveCapacity(own.count + provided.count + handler.count)
        fields.append(contentsOf: own)
        for (key, value) in provided where !own.contains(where: { $0.key == key }) {
            fields.append((key, value.text))
        }
        for (key, value) in handler where (provided.isEmpty || provided[key] == nil) && !own.contains(where: { $0.key == key }) {
            fields.append((key, value.text))
        }
        fields.sort { $0.key < $1.key }
        return fields
    }
}

extension Logger {
    /// Logs `message` with `fields` (text values): the line `log(level:_:metadata:)` writes
    /// with the fields as string metadata, but our handlers (`TextLogHandler`,
    /// `JSONLogHandler`) write it straight from the text, without the metadata dictionary, the
    /// `LogEvent` and the merge of dictionaries swift-log's path costs. For a line written per
    /// request (the gateway's), where that path was 7.5 % of the gateway's CPU under `me`.
    public func log(
        level: Logger.Level, _ message: String, fields: KeyValuePairs<String, String>,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard self.logLevel <= level else { return }
        func write(to handler: some FieldsLogHandler) {
            handler.log(
                level: level, message: message,
                fields: LogFields.merged(handler: handler.metadata, provider: handler.metadataProvider, own: fields),
                source: Self.module(fileID: file))
        }
        // Our handlers by their types first: a cast to a concrete type compares type metadata,
        // where a cast to the protocol looks its conformance up (about 15 % of the line's cost).
        let handler = self.handler
        if let text = handler as? TextLogHandler {
            write(to: text)
        } else if let json = handler as? JSONLogHandler {
            write(to: json)
        } else if let other = handler as? any FieldsLogHandler {
            write(to: other)
        } else {
            var metadata = Logger.Metadata()
            for (key, value) in fields { metadata[key] = .string(value) }
            self.log(level: level, "\(message)", metadata: metadata, file: file, function: function, line: line)
        }
    }

    /// The module a `#fileID` names (`Gateway/HTTP/X.swift` → `Gateway`), as swift-log takes a
    /// line's source from it.
    static func module(fileID: String) -> String {
        guard let slash = fileID.utf8.firstIndex(of: UInt8(ascii: "/")) else { return "n/a" }
        return String(fileID[..<slash])
    }
}
