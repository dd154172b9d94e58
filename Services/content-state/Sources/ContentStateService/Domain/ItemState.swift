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
