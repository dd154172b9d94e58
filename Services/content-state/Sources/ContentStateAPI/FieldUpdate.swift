/// What a put does to an optional field: a member left out keeps the stored value, `null`
/// clears it, a value sets it. (Tapping the heart must not wipe a nickname set earlier.)
public enum FieldUpdate<Value: Hashable & Sendable>: Hashable, Sendable {
    case keep
    case set(Value?)

    /// The field's value after the update.
    public func applied(to current: Value?) -> Value? {
        switch self {
        case .keep: current
        case .set(let value): value
        }
    }
}

extension KeyedDecodingContainer {
    /// `.keep` when `key` is absent, `.set(nil)` for `null`, `.set(value)` otherwise.
    func decodeUpdate<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> FieldUpdate<Value> {
        guard self.contains(key) else { return .keep }
        if try self.decodeNil(forKey: key) { return .set(nil) }
        return .set(try self.decode(Value.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// The inverse of `decodeUpdate`: nothing for `.keep`, `null` or the value for `.set`.
    mutating func encodeUpdate<Value: Encodable>(_ update: FieldUpdate<Value>, forKey key: Key) throws {
        switch update {
        case .keep: break
        case .set(nil): try self.encodeNil(forKey: key)
        case .set(let value?): try self.encode(value, forKey: key)
        }
    }
}

extension KeyedEncodingContainer {
    /// The value, or an explicit `null` (result objects always carry every key). Faster than
    /// `encode(Optional)`, which Foundation's encoder takes through its slow generic path.
    mutating func encodeOrNull(_ value: String?, forKey key: Key) throws {
        if let value { try self.encode(value, forKey: key) } else { try self.encodeNil(forKey: key) }
    }

    mutating func encodeOrNull(_ value: Int64?, forKey key: Key) throws {
        if let value { try self.encode(value, forKey: key) } else { try self.encodeNil(forKey: key) }
    }
}
