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
    /// Each user's writes in this replica, at most four at once (`write(user:items:_:)`).
    let writeLine = UserWriteLine()
}

/// Column lists and conversions shared by the statements that read item rows. Times are
/// stored with millisecond precision and read as whole milliseconds since 1970.
enum ItemColumns {
    static let state = """
        s.item_id,
        (extract(epoch FROM s.favorited_at) * 1000)::bigint AS favorited_ms,
        s.nickname,
        s.position,
        (extract(epoch FROM s.read_at) * 1000)::bigint AS read_ms,
        (extract(epoch FROM s.unliked_at) * 1000)::bigint AS unliked_ms
        """

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

/// Item ids as a Postgres `text[]` literal for `= ANY($n::text[])`: each element quoted, with
/// `"` and `\` escaped. Ids never hold control characters (validated), so nothing else needs care.
func postgresTextArray(_ ids: [ItemID]) -> String {
    var text = "{"
    text.reserveCapacity(ids.reduce(2) { $0 + $1.value.utf8.count + 3 })
    for (index, id) in ids.enumerated() {
        if index > 0 { text += "," }
        text += "\""
        if id.value.utf8.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) {
            for scalar in id.value.unicodeScalars {
                if scalar == "\"" || scalar == "\\" { text += "\\" }
                text.unicodeScalars.append(scalar)
            }
        } else {
            text += id.value
        }
        text += "\""
    }
    return text + "}"
}
