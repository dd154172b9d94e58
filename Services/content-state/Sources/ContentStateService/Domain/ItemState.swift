import ContentStateAPI
/// Everything one user has said about one item. A state with nothing set is what an item
/// never touched looks like, and what a tombstone row holds.
struct ItemState: Hashable, Sendable {
    var favoritedAt: Timestamp?
    var nickname: String?
    var position: Int64?
    var readAt: Timestamp?
    var unlikedAt: Timestamp?

    static let empty = ItemState()

    var isFavorited: Bool { self.favoritedAt != nil }
}

/// The transitions of the RPC methods, as pure functions of the current state and the time
/// of the write. A transition that changes nothing leaves the state equal, and then nothing
/// is written and no change version is taken: put, remove, mark and unmark are idempotent.
extension ItemState {
    /// Favorites the item, keeping the original `favoritedAt` when it already is one.
    mutating func favorite(nickname: FieldUpdate<String>, position: FieldUpdate<Int64>, at now: Timestamp) {
        if self.favoritedAt == nil { self.favoritedAt = now }
        self.nickname = nickname.applied(to: self.nickname)
        self.position = position.applied(to: self.position)
    }

    /// Removes the favorite with its nickname and position.
    mutating func unfavorite() {
        self.favoritedAt = nil
        self.nickname = nil
        self.position = nil
    }

    mutating func toggleFavorite(at now: Timestamp) {
        if self.isFavorited {
            self.unfavorite()
        } else {
            self.favorite(nickname: .keep, position: .keep, at: now)
        }
    }

    /// Marks the item read; an item already read keeps its first `readAt`.
    mutating func markRead(at now: Timestamp) {
        if self.readAt == nil { self.readAt = now }
    }

    mutating func unmarkRead() {
        self.readAt = nil
    }

    /// Unlikes the item; an item already unliked keeps its first `unlikedAt`.
    mutating func unlike(at now: Timestamp) {
        if self.unlikedAt == nil { self.unlikedAt = now }
    }

    mutating func removeUnlike() {
        self.unlikedAt = nil
    }
}
