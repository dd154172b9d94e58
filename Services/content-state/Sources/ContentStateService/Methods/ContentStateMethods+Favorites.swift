import ContentStateAPI
import ServiceProtocol

extension ContentStateMethods {
    static func registerFavorites(on router: inout RPCRouter, store: ContentStore, reads: ContentReads) {
        router.register(ContentState.favoritesPut) { (params: FavoritePutParams, _) -> Favorite in
            let id = try ItemID(validating: params.itemID)
            try FavoriteRules.validate(nickname: params.nickname, position: params.position)
            let outcome = try await store.write(
                user: params.userID, items: [id], .favorite(nickname: params.nickname, position: params.position))
            let state = outcome.states[id] ?? .empty
            guard let favoritedAt = state.favoritedAt else { throw RPCError.internalError }
            return Favorite(itemID: id.value, nickname: state.nickname, position: state.position, favoritedAt: favoritedAt)
        }

        router.register(ContentState.favoritesRemove) { (params: ItemParams, _) -> RemovalResult in
            let id = try ItemID(validating: params.itemID)
            let outcome = try await store.write(user: params.userID, items: [id], .unfavorite)
            return RemovalResult(changed: outcome.changed > 0)
        }

        router.register(ContentState.favoritesToggle) { (params: ItemParams, _) -> FavoriteToggleResult in
            let id = try ItemID(validating: params.itemID)
            let outcome = try await store.write(user: params.userID, items: [id], .toggleFavorite)
            return FavoriteToggleResult(itemID: id.value, favorited: outcome.states[id]?.isFavorited ?? false)
        }

        router.registerRaw(ContentState.favoritesList) { (params: FavoritesListParams, _) in try await reads.favorites(params) }
    }
}
