import FoundationEssentials
import TextCoding

/// Reads typed settings from environment variables. Every failure names the variable, so a
/// process can stop at start with one clear line.
public struct EnvironmentReader: Sendable {
    public let values: [String: String]

    public init(_ values: [String: String] = ProcessInfo.processInfo.environment) {
        self.values = values
    }

    /// The variable's value, or nil when it is unset or empty.
    public func optional(_ name: String) -> String? {
        guard let value = self.values[name]?.trimmingWhitespace(), !value.isEmpty else { return nil }
        return value
    }

    public func string(_ name: String, default defaultValue: String) -> String {
        self.optional(name) ?? defaultValue
    }

    public func required(_ name: String) throws -> String {
        guard let value = self.optional(name) else { throw ConfigurationError.missing(name) }
        return value
    }

    public func int(_ name: String, default defaultValue: Int, range: ClosedRange<Int> = 0...Int.max) throws -> Int {
        guard let text = self.optional(name) else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError.invalid(name, "an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    public func port(_ name: String, default defaultValue: Int) throws -> Int {
        try self.int(name, default: defaultValue, range: 0...65535)
    }

    public func bool(_ name: String, default defaultValue: Bool) throws -> Bool {
        guard let text = self.optional(name)?.lowercased() else { return defaultValue }
        switch text {
        case "true", "1", "yes", "on": return true
        case "false", "0", "no", "off": return false
        default: throw ConfigurationError.invalid(name, "true or false")
        }
    }

    /// A duration given in whole seconds.
    public func seconds(_ name: String, default defaultValue: Int, range: ClosedRange<Int> = 0...Int.max) throws -> Duration {
        .seconds(try self.int(name, default: defaultValue, range: range))
    }

    /// One of a fixed set of words.
    public func choice<T: RawRepresentable & CaseIterable>(_ name: String, default defaultValue: T) throws -> T where T.RawValue == String {
        guard let text = self.optional(name) else { return defaultValue }
        guard let value = T(rawValue: text.lowercased()) else {
            throw ConfigurationError.invalid(name, "one of " + T.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return value
    }

    /// A comma-separated list; empty items are dropped.
    public func list(_ name: String) -> [String] {
        (self.optional(name) ?? "").split(separator: ",").map { $0.trimmingWhitespace() }.filter { !$0.isEmpty }
    }
}

/// A missing or malformed variable; the description is the one line a process prints before it exits.
public enum ConfigurationError: Error, CustomStringConvertible, Equatable {
    case missing(String)
    case invalid(String, String)
    case insecure(String, String)

    public var variable: String {
        switch self {
        case .missing(let name), .invalid(let name, _), .insecure(let name, _): name
        }
    }

    public var description: String {
        switch self {
        case .missing(let name): "\(name) is required but not set"
        case .invalid(let name, let expected): "\(name) is invalid: expected \(expected)"
        case .insecure(let name, let reason): "\(name): \(reason)"
        }
    }
}
