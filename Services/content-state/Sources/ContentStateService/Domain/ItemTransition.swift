import ContentStateAPI

/// What a write method does to each item it names, as `content.write_batch` applies it (the
/// function's header, migration 3, says each case's rule). A transition that changes nothing writes nothing
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

    /// What `content.write_batch` is given for this transition: its name, and the nickname
    /// and position it sets (`setNickname`, `setPosition` false: kept).
    struct Arguments: Equatable {
        var name: String
        var setNickname = false
        var nickname: String? = nil
        var setPosition = false
        var position: Int64? = nil
    }

    var arguments: Arguments {
        switch self {
        case .favorite(let nickname, let position):
            var arguments = Arguments(name: "favorite")
            if case .set(let text) = nickname { (arguments.setNickname, arguments.nickname) = (true, text) }
            if case .set(let value) = position { (arguments.setPosition, arguments.position) = (true, value) }
            return arguments
        case .unfavorite: return Arguments(name: "unfavorite")
        case .toggleFavorite: return Arguments(name: "toggle_favorite")
        case .markRead: return Arguments(name: "mark_read")
        case .unmarkRead: return Arguments(name: "unmark_read")
        case .unlike: return Arguments(name: "unlike")
        case .removeUnlike: return Arguments(name: "remove_unlike")
        }
    }
}
