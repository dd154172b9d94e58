import ContentStateAPI
import ServiceProtocol

/// The writes: each through `ContentStore.write` (the write lines and `content.write_batch` or
/// `content.write_entries`), its result the method's `Codable` type.
extension ContentCalls {
    /// `content.favorites.put`'s result.
    public func putFavorite(_ params: FavoritePutParams) async throws -> Favorite {
        let id = try ItemID(validating: params.itemID)
        try FavoriteRules.validate(nickname: params.nickname, position: params.position)
        let outcome = try await store.write(
            user: params.userID, items: [id], .favorite(nickname: params.nickname, position: params.position))
        let state = outcome.states[id] ?? .empty
        guard let favoritedAt = state.favoritedAt else { throw RPCError.internalError }
        return Favorite(itemID: id.value, nickname: state.nickname, position: state.position, favoritedAt: favoritedAt)
    }

    /// `content.favorites.remove`'s result.
    public func removeFavorite(_ params: ItemParams) async throws -> RemovalResult {
        try await self.remove(params, .unfavorite)
    }

    /// `content.favorites.toggle`'s result.
    public func toggleFavorite(_ params: ItemParams) async throws -> FavoriteToggleResult {
        let id = try ItemID(validating: params.itemID)
        let outcome = try await store.write(user: params.userID, items: [id], .toggleFavorite)
        return FavoriteToggleResult(itemID: id.value, favorited: outcome.states[id]?.isFavorited ?? false)
    }

    /// `content.read.mark`'s result.
    public func markRead(_ params: ItemParams) async throws -> ReadMark {
        let (id, readAt) = try await self.set(params, .markRead, \.readAt)
        return ReadMark(itemID: id, readAt: readAt)
    }

    /// `content.read.unmark`'s result.
    public func unmarkRead(_ params: ItemParams) async throws -> RemovalResult {
        try await self.remove(params, .unmarkRead)
    }

    /// `content.read.batch`'s result.
    public func markReadBatch(_ params: ReadBatchParams) async throws -> ReadBatchResult {
        let ids = try ItemID.batch(params.itemIDs, maximum: store.configuration.maxBatch)
        guard !ids.isEmpty else { return ReadBatchResult(updated: 0) }
        let outcome = try await store.write(user: params.userID, items: ids, params.read ? .markRead : .unmarkRead)
        return ReadBatchResult(updated: outcome.changed)
    }

    /// `content.unlikes.put`'s result.
    public func unlike(_ params: ItemParams) async throws -> Unlike {
        let (id, unlikedAt) = try await self.set(params, .unlike, \.unlikedAt)
        return Unlike(itemID: id, unlikedAt: unlikedAt)
    }

    /// `content.unlikes.remove`'s result.
    public func removeUnlike(_ params: ItemParams) async throws -> RemovalResult {
        try await self.remove(params, .removeUnlike)
    }

    /// A mark set on one item (a read mark, an unlike): the item's id and the mark's time.
    private func set(
        _ params: ItemParams, _ transition: ItemTransition, _ time: KeyPath<ItemState, Timestamp?>
    ) async throws -> (String, Timestamp) {
        let id = try ItemID(validating: params.itemID)
        let outcome = try await store.write(user: params.userID, items: [id], transition)
        guard let markedAt = outcome.states[id]?[keyPath: time] else { throw RPCError.internalError }
        return (id.value, markedAt)
    }

    /// A removal of one item's favorite, read mark or unlike: whether it changed anything.
    private func remove(_ params: ItemParams, _ transition: ItemTransition) async throws -> RemovalResult {
        let id = try ItemID(validating: params.itemID)
        let outcome = try await store.write(user: params.userID, items: [id], transition)
        return RemovalResult(changed: outcome.changed > 0)
    }
}
