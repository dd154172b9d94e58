/// A point in time with millisecond precision, the precision content state is stored at.
/// On the wire it is an RFC 3339 UTC string such as `2026-11-22T03:23:59.123Z`.
public struct Timestamp: Hashable, Comparable, Sendable, Codable {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var milliseconds: Int64

    public init(milliseconds: Int64) {
        self.milliseconds = milliseconds
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.milliseconds < rhs.milliseconds
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an RFC 3339 UTC time")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self.rfc3339)
    }
}

/// Times inside result objects are read and written as plain strings: Foundation's coders
/// are much slower for a nested single-value type, and a page holds up to 200 of them.
extension KeyedDecodingContainer {
    func decodeTimestamp(forKey key: Key) throws -> Timestamp {
        let text = try self.decode(String.self, forKey: key)
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an RFC 3339 UTC time")
        }
        return value
    }

    func decodeTimestampIfPresent(forKey key: Key) throws -> Timestamp? {
        guard let text = try self.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let value = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an RFC 3339 UTC time")
        }
        return value
    }
}
