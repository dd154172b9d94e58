import ContentStateAPI
import FoundationEssentials
import Postgres
import TextCoding

/// A read of one user that can run as one statement with the reads of other users: the
/// statement for one user, and the same for several, built from it.
///
/// `single` takes the user as `$1` and the read's other parameters as `$2`, `$3`, ...;
/// `batch` takes each of them as an array (one element per read, in order) and runs `single`
/// once per read, `LATERAL`, so each read keeps its own plan (an index scan of its user) and
/// its own `ORDER BY` and `LIMIT`. Each row of `batch` starts with `read_index`, the 1-based
/// place of its read.
///
/// `batch` has no `ORDER BY` of its own: sorting every read's rows again cost Postgres more
/// than a seventh of a favorites page (pgbench, eight reads a statement: 3,365–3,632 statements
/// a second sorted, 4,002–4,238 not). Each read's rows are put in `single`'s order in the
/// service instead (`inOrder`), by `rowOrder`: they arrive in it (the nested loop emits each
/// read's index scan as it goes), which is checked, and sorted only if not.
///
/// Reads come back in binary form (`PostgresResultFormat.binary`): their columns are text,
/// `bigint` and `boolean`, which the server then neither formats nor the service parses.
struct ReadStatement: Sendable {
    let single: String
    let batch: String
    let rowOrder: [RowOrderKey]

    /// - Parameters:
    ///   - single: the statement for one user, with `$1` (the user) ... `$n`.
    ///   - types: the SQL types of `$1` ... `$n`, `uuid` first.
    ///   - rowOrder: `single`'s `ORDER BY`, by the columns it returns; unique within a read.
    init(_ single: String, types: [String], rowOrder: [RowOrderKey]) {
        precondition(types.first == "uuid" && types.count < 10, "$1 is the user; at most $9")
        precondition(rowOrder.first?.kind != .text, "a read's order starts with a bigint or time column")
        self.single = single
        self.rowOrder = rowOrder
        let parameters = (1...types.count).map { "p\($0)" }
        let arrays = zip(1..., types).map { "$\($0)::\($1)[]" }.joined(separator: ", ")
        var lateral = single
        for number in (1...types.count).reversed() {
            lateral = lateral.replacing("$\(number)", with: "u.p\(number)")
        }
        self.batch = """
            SELECT u.read_index, r.*
            FROM unnest(\(arrays)) WITH ORDINALITY AS u(\(parameters.joined(separator: ", ")), read_index)
            CROSS JOIN LATERAL (
            \(lateral)
            ) r
            """
    }

    /// The rows of one read of `batch` in `single`'s order.
    func inOrder(_ rows: [PostgresRow]) throws -> [PostgresRow] {
        guard let first = rows.first, rows.count > 1 else { return rows }
        // Each key's column found once, not by name for every comparison.
        let columns = try self.rowOrder.map { try first.requiredColumnIndex($0.column) }
        func precedes(_ a: PostgresRow, _ b: PostgresRow) throws -> Bool {
            for (key, column) in zip(self.rowOrder, columns) {
                let order = try key.compare(a, b, at: column)
                if order != 0 { return key.descending ? order > 0 : order < 0 }
            }
            return false
        }
        // A read's order starts with a `bigint` or a time (`init`): the check reads it once a
        // row, and the later keys only on a tie.
        let (key, column) = (self.rowOrder[0], columns[0])
        var previous = try key.number(first, at: column)
        for index in rows.indices.dropFirst() {
            let current = try key.number(rows[index], at: column)
            let inPlace = previous == current ? try precedes(rows[index - 1], rows[index]) : key.descending == (previous > current)
            if !inPlace { return try rows.sorted(by: precedes) }
            previous = current
        }
        return rows
    }
}

/// One column of a read's row order, compared as Postgres orders it: a `bigint`, a
/// `timestamptz` (by its milliseconds, which is its order: the write functions store whole
/// milliseconds), or text of `COLLATE "C"` (`item_id`), byte by byte.
struct RowOrderKey: Sendable {
    enum Kind: Sendable {
        case integer
        case time
        case text
    }

    var column: String
    var kind: Kind
    var descending: Bool

    static func integer(_ column: String, descending: Bool = false) -> RowOrderKey {
        RowOrderKey(column: column, kind: .integer, descending: descending)
    }

    static func time(_ column: String, descending: Bool = false) -> RowOrderKey {
        RowOrderKey(column: column, kind: .time, descending: descending)
    }

    static func text(_ column: String, descending: Bool = false) -> RowOrderKey {
        RowOrderKey(column: column, kind: .text, descending: descending)
    }

    /// Negative, zero or positive as `first`'s value (in `column`, this key's place in the
    /// rows) is below, equal to or above `second`'s.
    func compare(_ first: PostgresRow, _ second: PostgresRow, at column: Int) throws -> Int {
        switch self.kind {
        case .integer, .time:
            let (a, b) = (try self.number(first, at: column), try self.number(second, at: column))
            return a < b ? -1 : a == b ? 0 : 1
        case .text:
            let (a, b) = (try first.decode(column, as: String.self), try second.decode(column, as: String.self))
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        }
    }

    /// The value of a `bigint` key, or a time key's milliseconds, in `row` at `column`.
    func number(_ row: PostgresRow, at column: Int) throws -> Int64 {
        switch self.kind {
        case .integer: try row.decode(column, as: Int64.self)
        case .time: try row.decode(column, as: PostgresMilliseconds.self).value
        case .text: throw PostgresError.decoding(column: self.column, message: "a text key has no number")
        }
    }
}

/// The reads that go through `ContentStore.readLine`, one statement each; the line's key.
enum ReadKind: Hashable, Sendable {
    case favorites(FavoritesOrder, afterCursor: Bool)
    case marks(MarkList, afterCursor: Bool)
    case changes
}

/// One read waiting in the read line: its user and its other parameters as text (nil is NULL).
struct PendingRead: Sendable {
    var user: UUID
    var parameters: [String?]
}

extension ContentStore {
    /// The rows of `kind`'s statement for `user` and `parameters` (`$2`, `$3`, ...), run alone
    /// or, when reads of the same kind wait, with them as one statement (`readLine`).
    func read(_ kind: ReadKind, user: UUID, _ parameters: [String?]) async throws -> [PostgresRow] {
        try await readLine.run(PendingRead(user: user, parameters: parameters), for: kind) { reads in
            try await self.run(kind.statement, reads)
        }
    }

    /// `reads` as one statement, each answered with its own rows. When the statement fails in
    /// the server (a read's parameter it cannot take, say), each read runs alone, so that only
    /// a read that fails alone fails.
    private func run(_ statement: ReadStatement, _ reads: [PendingRead]) async throws -> [Result<[PostgresRow], any Error>] {
        try await runTogether(reads) { read in
            try await postgres.query(statement.single, read.bindings, results: .binary)
        } together: { reads in
            var arguments: [PostgresValue] = [.text(postgresArray(reads.map { $0.user.lowercasedText }))]
            for index in reads[0].parameters.indices {
                arguments.append(.text(postgresArray(reads.map { $0.parameters[index] })))
            }
            let rows = try await postgres.query(statement.batch, arguments, results: .binary)
            return try rows.byCall(in: "read_index", calls: reads.count).map { .success(try statement.inOrder($0)) }
        }
    }
}

extension PendingRead {
    var bindings: [PostgresValue] {
        [.uuid(self.user)] + self.parameters.map { $0.map(PostgresValue.text) ?? .null }
    }
}

extension ReadKind {
    var statement: ReadStatement {
        switch self {
        case .favorites(.recent, false): ContentStore.favoritesRecentFirst
        case .favorites(.recent, true): ContentStore.favoritesRecentAfter
        case .favorites(.position, false): ContentStore.favoritesByPositionFirst
        case .favorites(.position, true): ContentStore.favoritesByPositionAfter
        case .marks(let list, let afterCursor): afterCursor ? list.statements.after : list.statements.first
        case .changes: ContentStore.selectChanges
        }
    }
}
