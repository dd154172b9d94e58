import FoundationEssentials
import TextCoding

// `Codable` params and results spell their times with `RFC3339` (TextCoding).

extension KeyedEncodingContainer {
    public mutating func encodeTimestamp(_ date: Date?, forKey key: Key) throws {
        try self.encode(date.map(RFC3339.format), forKey: key)
    }
}

extension KeyedDecodingContainer {
    public func decodeTimestamp(forKey key: Key) throws -> Date {
        let text = try self.decode(String.self, forKey: key)
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an RFC 3339 time")
        }
        return date
    }

    public func decodeTimestampIfPresent(forKey key: Key) throws -> Date? {
        guard let text = try self.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard let date = RFC3339.parse(text) else {
            throw DecodingError.dataCorruptedError(forKey: key, in: self, debugDescription: "not an RFC 3339 time")
        }
        return date
    }
}
