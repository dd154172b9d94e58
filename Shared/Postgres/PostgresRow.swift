/// The names and types of a result's columns, shared by all its rows.
@usableFromInline
final class PostgresColumns: Sendable {
    @usableFromInline let names: [String]
    @usableFromInline let types: [PostgresDataType]

    init(names: [String], types: [PostgresDataType]) {
        self.names = names
        self.types = types
    }
}

/// One result row, read by column name or position:
/// `try row.decode("id", as: UUID.self)`, `try row.decode(1, as: String?.self)`.
///
/// The `decode` methods are inlinable so that callers in other modules get them specialized
/// for the type they read: unspecialized, each cell cost a run-time lookup of generic metadata.
public struct PostgresRow: Sendable {
    @usableFromInline let columns: PostgresColumns
    /// Cell text in result order; nil is SQL NULL.
    @usableFromInline let cells: [String?]

    public var columnNames: [String] { columns.names }

    /// The value of the first column called `column`.
    @inlinable
    public func decode<T: PostgresDecodable>(_ column: String, as type: T.Type = T.self) throws -> T {
        guard let index = columns.names.firstIndex(of: column) else {
            throw PostgresError.decoding(column: column, message: "no such column")
        }
        return try decodeCell(at: index, label: column)
    }

    /// The value of the column at `index` (0-based).
    @inlinable
    public func decode<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard cells.indices.contains(index) else {
            throw PostgresError.decoding(column: "#\(index)", message: "no such column")
        }
        return try decodeCell(at: index, label: columns.names[index])
    }

    @inlinable
    func decodeCell<T: PostgresDecodable>(at index: Int, label: String) throws -> T {
        guard let text = cells[index] else {
            guard let null = T.decodedNull else {
                throw PostgresError.decoding(column: label, message: "NULL read as non-optional \(T.self)")
            }
            return null
        }
        guard let value = T.decode(postgresText: text, type: columns.types[index]) else {
            throw PostgresError.decoding(
                column: label, message: "type \(columns.types[index].oid) is not readable as \(T.self)")
        }
        return value
    }
}
