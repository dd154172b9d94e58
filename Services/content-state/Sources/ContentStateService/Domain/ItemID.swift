/// An item of the app's catalogue, as the app names it: an opaque string of 1–256 UTF-8
/// bytes without control characters. Built only through `init(validating:)`.
struct ItemID: Hashable, Sendable {
    let value: String

    static let maximumBytes = 256

    init(validating value: String) throws(ContentStateError) {
        let bytes = value.utf8.count
        guard bytes >= 1, bytes <= Self.maximumBytes else { throw .invalidItemID("must be 1 to 256 bytes") }
        // Unicode's control characters (category Cc) are exactly these two ranges.
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) else {
            throw .invalidItemID("must not contain control characters")
        }
        self.value = value
    }

    /// Validates every id of a batch of at most `maximum`, dropping repeats but keeping order.
    static func batch(_ values: [String], maximum: Int) throws(ContentStateError) -> [ItemID] {
        guard values.count <= maximum else { throw .batchTooLarge(maximum: maximum) }
        var seen = Set<String>()
        var ids: [ItemID] = []
        ids.reserveCapacity(values.count)
        for value in values where seen.insert(value).inserted {
            ids.append(try ItemID(validating: value))
        }
        return ids
    }
}
