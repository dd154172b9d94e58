import ContentStateAPI
import ServiceProtocol

extension ContentStateMethods {
    static func registerFavorites(on router: inout RPCRouter, calls: ContentCalls) {
        router.register(ContentState.favoritesPut) { (params: FavoritePutParams, _) in try await calls.putFavorite(params) }
        router.register(ContentState.favoritesRemove) { (params: ItemParams, _) in try await calls.removeFavorite(params) }
        router.register(ContentState.favoritesToggle) { (params: ItemParams, _) in try await calls.toggleFavorite(params) }
        router.registerRaw(ContentState.favoritesList) { (params: FavoritesListParams, _) in try await calls.favorites(params) }
    }
}
