import ContentStateAPI
import Foundation
import Postgres
import ServiceProtocol

/// Content state in Postgres (schema `content`). Every statement is scoped by the user id
/// it is given; nothing here reads or writes across users. A failing Postgres is answered as
/// ServiceKit's StoreFailure says (`service_unavailable` when it cannot be reached).
struct ContentStore: Sendable {
    let postgres: PostgresClient
    let configuration: ContentStateConfiguration
    /// Each user's writes in this replica: a few statements at once, the writes that wait
    /// behind them folded into one (`write(user:items:_:)`).
    let writeLine = UserWriteLine<PendingWrite, WriteOutcome>(entries: { $0.items.count })
}

/// Column lists and conversions shared by the statements that read item rows. Times are
/// stored with millisecond precision and read as whole milliseconds since 1970.
enum ItemColumns {
    static let state = """
        s.item_id,
        \(milliseconds("s.favorited_at")) AS favorited_ms,
        s.nickname,
        s.position,
        \(milliseconds("s.read_at")) AS read_ms,
        \(milliseconds("s.unliked_at")) AS unliked_ms
        """

    /// The `timestamptz` `column` as a `bigint` of milliseconds since 1970. `date_part`
    /// computes in `float8` where `extract` computes in `numeric`, which cost a changes page of
    /// 100 items a third of its Postgres time (pgbench: 1,963-1,987 pages a second with
    /// `extract`, 2,980-3,009 with `date_part`, the same rows). Times are stored in whole
    /// milliseconds, and the `float8` seconds times 1000 round back to the exact millisecond
    /// (a time in microseconds stays below 2^53 until the year 2255).
    static func milliseconds(_ column: String) -> String {
        "(date_part('epoch', \(column)) * 1000)::bigint"
    }

    static func timestamp(_ row: PostgresRow, _ column: String) throws -> Timestamp? {
        try row.decode(column, as: Int64?.self).map(Timestamp.init(milliseconds:))
    }
}

extension ItemState {
    /// The state in a row selected with `ItemColumns.state`.
    init(row: PostgresRow) throws {
        self.init(
            favoritedAt: try ItemColumns.timestamp(row, "favorited_ms"),
            nickname: try row.decode("nickname", as: String?.self),
            position: try row.decode("position", as: Int64?.self),
            readAt: try ItemColumns.timestamp(row, "read_ms"),
            unlikedAt: try ItemColumns.timestamp(row, "unliked_ms"))
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
    var text = "{"
    text.reserveCapacity(elements.reduce(2) { $0 + ($1?.utf8.count ?? 4) + 3 })
    for (index, element) in elements.enumerated() {
        if index > 0 { text += "," }
        guard let element else {
            text += "NULL"
            continue
        }
        text += "\""
        if element.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for scalar in element.unicodeScalars {
                if scalar == "\"" || scalar == "\\" { text += "\\" }
                text.unicodeScalars.append(scalar)
            }
        } else {
            text += element
        }
        text += "\""
    }
    return text + "}"
}
