import Foundation
import Logging
import Synchronization

/// Writes one JSON object per line to standard output: time, level, label, message, source
/// and the flattened metadata (dotted keys as given). For production log shipping.
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
        var fields: [String: String] = [:]
        for (key, value) in self.metadata { fields[key] = "\(value)" }
        if let provided = self.metadataProvider?.get() {
            for (key, value) in provided { fields[key] = "\(value)" }
        }
        for (key, value) in event.metadata ?? [:] { fields[key] = "\(value)" }
        fields["time"] = Date().formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
        fields["level"] = event.level.rawValue
        fields["label"] = self.label
        fields["message"] = "\(event.message)"
        fields["source"] = event.source
        guard var line = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys]) else { return }
        line.append(0x0A)
        Self.output.withLock { _ in FileHandle.standardOutput.write(line) }
    }

    private static let output = Mutex(())
}

/// Installs the process-wide log handler once, at start.
public enum LoggingSetup {
    public static func bootstrap(level: Logger.Level, format: LogFormat) {
        LoggingSystem.bootstrap { label in
            switch format {
            case .text:
                var handler = StreamLogHandler.standardOutput(label: label)
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
