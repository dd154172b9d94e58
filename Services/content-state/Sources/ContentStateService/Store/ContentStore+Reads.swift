import ContentStateAPI
import Foundation
import Postgres
import TextCoding

/// A read of one user that can run as one statement with the reads of other users: the
/// statement for one user, and the same for several, built from it.
///
/// `single` takes the user as `$1` and the read's other parameters as `$2`, `$3`, ...;
/// `batch` takes each of them as an array (one element per read, in order) and runs `single`
/// once per read, `LATERAL`, so each read keeps its own plan (an index scan of its user) and
/// its own `ORDER BY` and `LIMIT`. Each row of `batch` starts with `read_index`, the 1-based
/// place of its read, and the rows of one read come in `single`'s order (`rowOrder`).
struct ReadStatement: Sendable {
    let single: String
    let batch: String

    /// - Parameters:
    ///   - single: the statement for one user, with `$1` (the user) ... `$n`.
    ///   - types: the SQL types of `$1` ... `$n`, `uuid` first.
    ///   - rowOrder: `single`'s order, by the columns it returns (`r.` before each).
    init(_ single: String, types: [String], rowOrder: String) {
        precondition(types.first == "uuid" && types.count < 10, "$1 is the user; at most $9")
        self.single = single
        let parameters = (1...types.count).map { "p\($0)" }
        let arrays = zip(1..., types).map { "$\($0)::\($1)[]" }.joined(separator: ", ")
        var lateral = single
        for number in (1...types.count).reversed() {
            lateral = lateral.replacingOccurrences(of: "$\(number)", with: "u.p\(number)")
        }
        self.batch = """
            SELECT u.read_index, r.*
            FROM unnest(\(arrays)) WITH ORDINALITY AS u(\(parameters.joined(separator: ", ")), read_index)
            CROSS JOIN LATERAL (
            \(lateral)
            ) r
            ORDER BY u.read_index, \(rowOrder)
            """
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
        if reads.count == 1 {
            return [.success(try await postgres.query(statement.single, reads[0].bindings))]
        }
        var arguments: [PostgresValue] = [.text(postgresArray(reads.map { $0.user.lowercasedText }))]
        for index in reads[0].parameters.indices {
            arguments.append(.text(postgresArray(reads.map { $0.parameters[index] })))
        }
        let rows: [PostgresRow]
        do {
            rows = try await postgres.query(statement.batch, arguments)
        } catch let error as PostgresError where error.failedInTheServer {
            return await oneByOne(reads) { try await postgres.query(statement.single, $0.bindings) }
        }
        var pages = Array(repeating: [PostgresRow](), count: reads.count)
        for row in rows {
            let index = try row.decode("read_index", as: Int.self) - 1
            guard pages.indices.contains(index) else {
                throw PostgresError.decoding(column: "read_index", message: "no read \(index + 1) in this statement")
            }
            pages[index].append(row)
        }
        return pages.map { .success($0) }
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
