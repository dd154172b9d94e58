/// An item of the app's catalogue, as the app names it: an opaque string of 1–256 UTF-8
/// bytes without control characters. Built only through `init(validating:)`.
struct ItemID: Hashable, Sendable {
    let value: String

    static let maximumBytes = 256

    init(validating value: String) throws(ContentStateError) {
        let bytes = value.utf8.count
        guard bytes >= 1, bytes <= Self.maximumBytes else { throw .invalidItemID("must be 1 to 256 bytes") }
        guard !Self.containsControlCharacter(value) else { throw .invalidItemID("must not contain control characters") }
        self.value = value
    }

    /// Whether `value` holds one of Unicode's control characters (category Cc): U+0000–U+001F,
    /// U+007F and U+0080–U+009F. Read on the UTF-8 bytes, without decoding scalars: the first
    /// two are those single bytes, and the C1 controls are 0xC2 followed by 0x80–0x9F (0xC2 only
    /// ever leads a two-byte sequence, so that pair is always one of them).
    static func containsControlCharacter(_ value: String) -> Bool {
        var afterC2 = false
        for byte in value.utf8 {
            if byte < 0x20 || byte == 0x7F || (afterC2 && byte <= 0x9F) { return true }
            afterC2 = byte == 0xC2
        }
        return false
    }

    /// Validates every id of a batch of at most `maximum`, dropping repeats but keeping order.
    static func batch(_ values: [String], maximum: Int) throws(ContentStateError) -> [ItemID] {
        guard values.count <= maximum else { throw .batchTooLarge(maximum: maximum) }
        var seen = Set<String>(minimumCapacity: values.count)
        var ids: [ItemID] = []
        ids.reserveCapacity(values.count)
        for value in values where seen.insert(value).inserted {
            ids.append(try ItemID(validating: value))
        }
        return ids
    }
}
