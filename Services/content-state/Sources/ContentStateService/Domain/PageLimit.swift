import ContentStateAPI
/// How many items one page holds: 1–200, 50 when the caller gives none.
enum PageLimit {
    static let range = 1...200
    static let defaultValue = 50

    static func validated(_ limit: Int?) throws(ContentStateError) -> Int {
        let value = limit ?? Self.defaultValue
        guard Self.range.contains(value) else { throw .invalidLimit }
        return value
    }
}
