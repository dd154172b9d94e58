import ContentStateAPI

extension Change {
    /// The change an item's stored state stands for.
    init(itemID: String, state: ItemState, updatedAt: Timestamp) {
        self.init(
            itemID: itemID, favorited: state.isFavorited, nickname: state.nickname, position: state.position,
            read: state.readAt != nil, unliked: state.unlikedAt != nil, updatedAt: updatedAt,
            favoritedAt: state.favoritedAt, readAt: state.readAt, unlikedAt: state.unlikedAt)
    }
}
