import ContentStateAPI
import Postgres
import ServiceProtocol

/// The read methods a client calls most (a page of favorites, the state of a screenful of
/// items, a page of the changes feed), with their rules, as content-state answers them over
/// RPC and as the gateway answers them in its own process when it reads the content schema
/// itself (`CONTENT_READ_DATABASE_URL`). One definition: the same validation, statements and
/// JSON either way.
public struct ContentReads: Sendable {
    let store: ContentStore

    init(store: ContentStore) {
        self.store = store
    }

    /// Reads of schema `content` through `postgres`, which must be migrated by content-state.
    public init(postgres: PostgresClient, configuration: ContentStateConfiguration) {
        self.store = ContentStore(postgres: postgres, configuration: configuration)
    }

    /// `content.favorites.list`'s result.
    public func favorites(_ params: FavoritesListParams) async throws -> RawJSON {
        let order = params.order ?? .recent
        let limit = try PageLimit.validated(params.limit)
        let cursor = try ContentStateMethods.cursor(params.cursor, order == .recent ? .favoritesRecent : .favoritesPosition)
        return try await store.favorites(user: params.userID, order: order, limit: limit, after: cursor).rawJSON
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
