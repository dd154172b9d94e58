import ContentStateAPI
import Postgres

/// What a write method does to each item it names, as `content.write_items` applies it (the
/// function's header says each case's rule). A transition that changes nothing writes nothing
/// and takes no change version: put, remove, mark and unmark are idempotent.
enum ItemTransition: Sendable, Equatable {
    /// Favorites the item, keeping the original favorite time when it already is one; the
    /// nickname and position change only when the update sets them.
    case favorite(nickname: FieldUpdate<String>, position: FieldUpdate<Int64>)
    /// Removes the favorite with its nickname and position.
    case unfavorite
    case toggleFavorite
    /// Marks the item read; an item already read keeps its first read time.
    case markRead
    case unmarkRead
    /// Unlikes the item; an item already unliked keeps its first unlike time.
    case unlike
    case removeUnlike

    /// The function's `p_transition` .. `p_position` arguments.
    var sqlArguments: [PostgresValue] {
        switch self {
        case .favorite(let nickname, let position):
            let setNickname: [PostgresValue] =
                switch nickname {
                case .keep: [.bool(false), .null]
                case .set(let text): [.bool(true), text.map(PostgresValue.text) ?? .null]
                }
            let setPosition: [PostgresValue] =
                switch position {
                case .keep: [.bool(false), .null]
                case .set(let value): [.bool(true), value.map { .int(Int($0)) } ?? .null]
                }
            return [.text("favorite")] + setNickname + setPosition
        case .unfavorite: return Self.plain("unfavorite")
        case .toggleFavorite: return Self.plain("toggle_favorite")
        case .markRead: return Self.plain("mark_read")
        case .unmarkRead: return Self.plain("unmark_read")
        case .unlike: return Self.plain("unlike")
        case .removeUnlike: return Self.plain("remove_unlike")
        }
    }

    private static func plain(_ name: String) -> [PostgresValue] {
        [.text(name), .bool(false), .null, .bool(false), .null]
    }
}
