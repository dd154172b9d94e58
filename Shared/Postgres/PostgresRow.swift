/// One result's column names and types and every cell's bytes (text, or binary when the
/// statement asked for it), stored once for all its rows: the bytes of every cell in one
/// buffer, and where each cell starts and how long it is (a length of -1 is SQL NULL). A row
/// is this and its number, so reading a result makes no allocation per row or per cell.
@usableFromInline
final class PostgresCells: Sendable {
    @usableFromInline let names: [String]
    @usableFromInline let types: [PostgresDataType]
    /// Whether the cells are in their types' binary form (`PostgresResultFormat.binary`).
    @usableFromInline let isBinary: Bool
    @usableFromInline let bytes: [UInt8]
    /// Per cell, row by row: where its text starts in `bytes`.
    @usableFromInline let starts: [Int32]
    /// Per cell, row by row: its length in bytes, -1 for NULL.
    @usableFromInline let lengths: [Int32]

    init(names: [String], types: [PostgresDataType], isBinary: Bool = false, bytes: [UInt8], starts: [Int32], lengths: [Int32]) {
        self.names = names
        self.types = types
        self.isBinary = isBinary
        self.bytes = bytes
        self.starts = starts
        self.lengths = lengths
    }

    /// The position of the first column called `column`. Names of another length are passed
    /// over without a string comparison: every cell read by name walks the names before its
    /// own, and `==` of two unequal strings is a call into the runtime.
    @usableFromInline
    func index(of column: String) -> Int? {
        let count = column.utf8.count
        for (index, name) in names.enumerated() where name.utf8.count == count && name == column { return index }
        return nil
    }

    /// Reads the text of cell `cell` (row-major) with `body`, or nil for NULL.
    @inlinable
    func withCell<R>(_ cell: Int, _ body: (UnsafeRawBufferPointer) -> R) -> R? {
        let length = Int(lengths[cell])
        guard length >= 0 else { return nil }
        let start = Int(starts[cell])
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start..<start + length])) }
    }
}

/// One result row, read by column name or position:
/// `try row.decode("id", as: UUID.self)`, `try row.decode(1, as: String?.self)`.
///
/// The `decode` methods are inlinable so that callers in other modules get them specialized
/// for the type they read: unspecialized, each cell cost a run-time lookup of generic metadata.
public struct PostgresRow: Sendable {
    @usableFromInline let columns: PostgresCells
    /// The row's first cell in `columns`.
    @usableFromInline let firstCell: Int

    public var columnNames: [String] { columns.names }

    /// The position of the first column called `column`, as `decode(_:as:)` finds it by name.
    public func columnIndex(_ column: String) -> Int? {
        columns.index(of: column)
    }

    /// The position of the first column called `column`, or a decoding error naming it. The
    /// rows of one result share their columns: a reader of many rows finds each column once,
    /// then reads every row by position, not by a walk of the names for every cell.
    public func requiredColumnIndex(_ column: String) throws -> Int {
        guard let index = columns.index(of: column) else {
            throw PostgresError.decoding(column: column, message: "no such column")
        }
        return index
    }

    /// The value of the first column called `column`.
    @inlinable
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.index(of: column) else {
            throw PostgresError.decoding(column: column, message: "no such column")
        }
        return try decodeCell(at: index, label: column)
    }

    /// The value of the column at `index` (0-based).
    @inlinable
    public func decode<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        try checkColumn(index)
        return try decodeCell(at: index, label: columns.names[index])
    }

    /// The bytes of the cell at `index` (0-based) as the server sent them, read in place by
    /// `body`; nil for NULL. A text column's bytes are its UTF-8 in either result format: a
    /// reader that writes the text on (into JSON, say) needs no `String` in between.
    @inlinable
    public func withBytes<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) -> R) throws -> R? {
        try checkColumn(index)
        return columns.withCell(firstCell + index, body)
    }

    /// Throws a decoding error naming `#index` unless the row has a column at `index`.
    @inlinable
    func checkColumn(_ index: Int) throws {
        guard columns.names.indices.contains(index) else {
            throw PostgresError.decoding(column: "#\(index)", message: "no such column")
        }
    }

    @inlinable
    func decodeCell<T: PostgresDecodable>(at index: Int, label: String) throws -> T {
        let type = columns.types[index]
        let isBinary = columns.isBinary
        let read = columns.withCell(firstCell + index) {
            isBinary ? T.decode(postgresBinary: $0, type: type) : T.decode(postgresBytes: $0, type: type)
        }
        guard let decoded = read else {
            guard let null = T.decodedNull else {
                throw PostgresError.decoding(column: label, message: "NULL read as non-optional \(T.self)")
            }
            return null
        }
        guard let value = decoded else {
            throw PostgresError.decoding(column: label, message: "type \(type.oid) is not readable as \(T.self)")
        }
        return value
    }
}
