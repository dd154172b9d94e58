extension StringProtocol {
    /// The text without spaces and tabs at either end, as Foundation's
    /// `trimmingCharacters(in: .whitespaces)` has them: Unicode's space separators, the tab and
    /// the zero-width space.
    /// Header fields, configuration values and list entries are read through it; the services
    /// link FoundationEssentials only, which has no `CharacterSet`.
    public func trimmingWhitespace() -> String {
        self.trimming(where: Self.isSpaceOrTab)
    }

    /// The text without white space and line ends at either end, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` has them.
    public func trimmingWhitespaceAndNewlines() -> String {
        self.trimming { Self.isSpaceOrTab($0) || Self.isNewline($0) }
    }

    /// The text without the Unicode scalars `isTrimmed` picks at either end (scalars, as
    /// Foundation trims: a combining mark after a space keeps the space).
    public func trimming(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = String(self).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        return String(scalars[first...last])
    }

    private static func isSpaceOrTab(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\u{200B}" || scalar.properties.generalCategory == .spaceSeparator
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x0A...0x0D, 0x85, 0x2028, 0x2029: true
        default: false
        }
    }
}
