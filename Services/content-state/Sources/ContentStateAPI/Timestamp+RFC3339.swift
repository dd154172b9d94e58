import TextCoding

extension Timestamp {
    /// `2026-11-22T03:23:59.123Z`.
    public var rfc3339: String {
        RFC3339Milliseconds.format(self.milliseconds)
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff]Z` (the form `rfc3339` writes; more digits are truncated
    /// to milliseconds). Nil for anything else.
    public init?(rfc3339 text: String) {
        guard let milliseconds = RFC3339Milliseconds.parse(text) else { return nil }
        self.init(milliseconds: milliseconds)
    }
}
