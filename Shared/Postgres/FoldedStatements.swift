/// The text of a `StatementLine`'s statement for each number of calls it carries: written once
/// for up to the line's `callsPerStatement` calls, and on the spot for more (which a caller
/// outside the line may ask for).
public struct FoldedStatements: Sendable {
    private let written: [String]
    private let write: @Sendable (Int) -> String

    /// `write` gives the statement for a number of calls, 1 or more.
    public init(upTo most: Int, _ write: @escaping @Sendable (Int) -> String) {
        precondition(most > 0)
        self.written = (1...most).map(write)
        self.write = write
    }

    /// The statement for `count` calls.
    public subscript(count: Int) -> String {
        self.written.indices.contains(count - 1) ? self.written[count - 1] : self.write(count)
    }
}
