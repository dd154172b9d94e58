import ContentStateAPI
import FoundationEssentials
import Postgres
import ServiceProtocol

/// Content state in Postgres (schema `content`). Every read and write is scoped by the user
/// id it is given, and nothing reads or writes across users: a statement that carries the
/// calls of several users (`readLine`, `stateLine`, `usersWriteLine`) runs each call for its
/// own user only and answers each caller with its own rows. A failing Postgres is answered as
/// ServiceKit's StoreFailure says (`service_unavailable` when it cannot be reached).
struct ContentStore: Sendable {
    let postgres: PostgresClient
    let configuration: ContentStateConfiguration
    /// Each user's writes in this replica: two statements of a user at once, the writes that
    /// wait behind them folded into one (`write(user:items:_:)`), up to 16 writes and 500
    /// items. `content.write_batch` runs a user's writers one at a time with a row lock, and
    /// that stays the guarantee (several replicas, an account's deletion); the line keeps the
    /// next statement waiting in Postgres, so it starts the moment the previous one commits,
    /// and the rest here, holding no connection, so one user writing from many devices cannot
    /// take the whole pool. Two at once served as many writes as four with less Postgres time
    /// per write; one at a time left Postgres idle for a round trip between statements.
    let writeLine = StatementLine<UUID, PendingWrite, WriteOutcome>(entries: { $0.items.count })
    /// The calls of `writeLine` of every user: four statements at once, the calls that wait
    /// behind them (up to 16, 500 items) run together as one set-based statement
    /// (`content.write_entries`), each user's writes under its own lock. Four, so that a busy
    /// user's two statements (one of them waiting in Postgres for the user's lock) leave two
    /// for the others.
    let usersWriteLine = StatementLine<AllCalls, UserWrites, [Result<WriteOutcome, any Error>]>(
        statementsAtOnce: 4, entries: { $0.writes.reduce(0) { $0 + $1.items.count } })
    /// The page reads of every user in this replica (favorites, read and unliked lists, the
    /// changes feed), by statement: two of a kind at once, the reads of that kind that wait
    /// behind them run together as one statement (`read(_:user:_:)`, up to 16 reads). A read
    /// that finds a place free runs alone, at once.
    let readLine = StatementLine<ReadKind, PendingRead, [PostgresRow]>(statementsAtOnce: 2, callsPerStatement: 16)
    /// The state queries of every user in this replica: four statements at once, the queries
    /// that wait behind them run together as one (`flags(user:of:)`, up to 8 queries and 500
    /// ids). A query that finds a place free runs alone, at once. Four, not two: with two, 64
    /// clients' queries waited on the line's round trips with the cores 10–11 % idle; four
    /// served 5 % more of them a second for less gateway CPU each (docs/benchmarks.md). The
    /// page reads stay at two: four left fewer idle cores but cost more CPU a read.
    let stateLine = StatementLine<AllCalls, StateProbe, [PostgresRow]>(
        statementsAtOnce: 4, callsPerStatement: stateLineCallsPerStatement, entries: { $0.ids.count })
}

/// Times in the write functions' results: whole milliseconds since 1970, computed in SQL
/// (reads select the `timestamptz` columns themselves, read as `PostgresMilliseconds`).
enum ItemColumns {
    static func timestamp(_ row: PostgresRow, _ column: Int) throws -> Timestamp? {
        try row.decode(column, as: Int64?.self).map(Timestamp.init(milliseconds:))
    }
}

/// Where an item state's columns (`favorited_ms`, `nickname`, `position`, `read_ms`,
/// `unliked_ms`: the write functions' results) are in a result: found in one row, then every
/// row of the result is read by position.
struct ItemStateColumns {
    let favorited, nickname, position, read, unliked: Int

    init(_ row: PostgresRow) throws {
        self.favorited = try row.requiredColumnIndex("favorited_ms")
        self.nickname = try row.requiredColumnIndex("nickname")
        self.position = try row.requiredColumnIndex("position")
        self.read = try row.requiredColumnIndex("read_ms")
        self.unliked = try row.requiredColumnIndex("unliked_ms")
    }
}

extension ItemState {
    /// The state in a row with `ItemStateColumns`' columns.
    init(row: PostgresRow) throws {
        try self.init(row: row, columns: ItemStateColumns(row))
    }

    /// The state in a row of a result whose item state columns are at `columns`.
    init(row: PostgresRow, columns: ItemStateColumns) throws {
        self.init(
            favoritedAt: try ItemColumns.timestamp(row, columns.favorited),
            nickname: try row.decode(columns.nickname, as: String?.self),
            position: try row.decode(columns.position, as: Int64?.self),
            readAt: try ItemColumns.timestamp(row, columns.read),
            unlikedAt: try ItemColumns.timestamp(row, columns.unliked))
    }
}

/// Item ids as a Postgres `text[]` literal for `= ANY($n::text[])`.
func postgresTextArray(_ ids: [ItemID]) -> String {
    postgresArray(ids.map(\.value))
}

/// A Postgres array literal of `elements` (cast it to the element type in the statement):
/// each element quoted, with `"` and `\` escaped, and `nil` as NULL. Text never holds NUL
/// (Postgres refuses it, and the API's validation before it), so nothing else needs care.
func postgresArray(_ elements: [String?]) -> String {
    var text: [UInt8] = []
    text.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
    text.append(UInt8(ascii: "{"))
    for (index, element) in elements.enumerated() {
        if index > 0 { text.append(UInt8(ascii: ",")) }
        guard let element else {
            text.append(contentsOf: "NULL".utf8)
            continue
        }
        text.append(UInt8(ascii: "\""))
        for byte in element.utf8 {
            if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { text.append(UInt8(ascii: "\\")) }
            text.append(byte)
        }
        text.append(UInt8(ascii: "\""))
    }
    text.append(UInt8(ascii: "}"))
    return String(decoding: text, as: UTF8.self)
}
