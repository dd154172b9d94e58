extension StringProtocol {
    /// The text without the white space at either end: spaces, tabs and line ends (Unicode's
    /// White_Space, as `Character.isWhitespace` has it). Configuration values, header fields
    /// and list entries are read through it; the services link FoundationEssentials only, whose
    /// strings have no `trimmingCharacters(in:)`.
    public func trimmingWhitespace() -> String {
        self.trimming(where: \.isWhitespace)
    }

    /// The text without the characters `isTrimmed` picks at either end.
    public func trimming(where isTrimmed: (Character) -> Bool) -> String {
        guard let first = self.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = self.lastIndex(where: { !isTrimmed($0) })!
        return String(self[first...last])
    }
}
