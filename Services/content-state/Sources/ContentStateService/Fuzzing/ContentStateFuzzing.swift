import ServiceProtocol

/// Content-state's reader of a caller's list cursor, for the fuzz targets (`Tools/fuzz`,
/// `scripts/fuzz`). Package-only.
package enum ContentStateFuzzing {
    /// A cursor's fields, and the text the service writes for them.
    package struct Cursor: Sendable, Equatable {
        package var kind: String
        package var key: Int64
        package var itemID: String?
        package var encoded: String
    }

    /// The lists a cursor may belong to, by their tag in the cursor: favorites by time and by
    /// position, read and unliked marks, the changes feed.
    package static let kinds = ["fr", "fp", "r", "u", "c"]
    /// The lists whose key is a time in milliseconds, and the times it may name.
    package static let timeKinds: Set<String> = ["fr", "r", "u"]
    package static var timeKeys: ClosedRange<Int64> { PageCursor.timeKeys }

    /// `text` read as a cursor of the list `kind` (one of `kinds`), or the error the caller gets.
    package static func readCursor(_ text: String, as kind: String) -> Result<Cursor, RPCError> {
        guard let kind = PageCursor.Kind(rawValue: kind) else { preconditionFailure("no list \(kind)") }
        do {
            let cursor = try PageCursor(decoding: text, as: kind)
            return .success(Cursor(kind: cursor.kind.rawValue, key: cursor.key, itemID: cursor.itemID, encoded: cursor.encoded))
        } catch {
            return .failure(error.rpcError)
        }
    }
}
