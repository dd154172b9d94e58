import ContentStateAPI

/// The answer to a state query as it is built: each item asked about once, in the order of
/// its first mention, with its flags (all false until a row says otherwise). One dictionary
/// finds an id's place, both to drop repeats and to put each row's flags; a `Set` for the
/// repeats and a `[String: ItemFlags]` for the answer hashed every id three times.
struct ItemFlagsTable: Sendable {
    /// The distinct ids, validated, in order.
    private(set) var ids: [String] = []
    private(set) var flags: [ItemFlags] = []
    private var positions: [String: Int] = [:]

    /// Validates every id of a batch of at most `maximum` (`ItemID`'s rules), dropping repeats.
    init(validating values: [String], maximum: Int) throws(ContentStateError) {
        guard values.count <= maximum else { throw .batchTooLarge(maximum: maximum) }
        self.positions.reserveCapacity(values.count)
        self.ids.reserveCapacity(values.count)
        for value in values {
            // One hash of the id: a repeat (rare) gets its first position back.
            if let first = self.positions.updateValue(self.ids.count, forKey: value) {
                self.positions[value] = first
                continue
            }
            _ = try ItemID(validating: value)
            self.ids.append(value)
        }
        self.flags = Array(repeating: ItemFlags(favorited: false, read: false, unliked: false), count: self.ids.count)
    }

    /// Sets the flags of `id`; an id not asked about is ignored.
    mutating func set(_ flags: ItemFlags, of id: String) {
        if let position = self.positions[id] { self.flags[position] = flags }
    }
}
