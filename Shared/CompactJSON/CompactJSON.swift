/// Why the compact coders handed a value to Foundation's.
public enum CompactJSON {
    /// The value or document is one the compact coders leave to Foundation's.
    public struct Unsupported: Error {
        public init() {}
    }

    /// How many values may encode themselves one inside another. Deeper is a type that
    /// encodes itself as itself, or a value deeper than any document the decoder reads (512).
    static let maximumNesting = 600
}
