import ContentStateAPI
import ServiceProtocol

/// The reads: results written as JSON by hand (`RawJSON`), placed in the RPC envelope or the
/// HTTP response as they are.
extension ContentCalls {
    /// `content.favorites.list`'s result.
    public func favorites(_ params: FavoritesListParams) async throws -> RawJSON {
        let order = params.order ?? .recent
        let limit = try PageLimit.validated(params.limit)
        let cursor = try ContentStateMethods.cursor(params.cursor, order == .recent ? .favoritesRecent : .favoritesPosition)
        return try await store.favorites(user: params.userID, order: order, limit: limit, after: cursor)
    }

    /// `content.state.query`'s result.
    public func state(_ params: StateQueryParams) async throws -> RawJSON {
        let table = try ItemFlagsTable(validating: params.itemIDs, maximum: store.configuration.maxBatch)
        return try await store.flags(user: params.userID, of: table).rawJSON
    }

    /// `content.state.changes`'s result.
    public func changes(_ params: ChangesParams) async throws -> RawJSON {
        let limit = try PageLimit.validated(params.limit)
        let since = try ContentStateMethods.cursor(params.since, .changes)?.key ?? 0
        return try await store.changes(user: params.userID, after: since, limit: limit)
    }
}
