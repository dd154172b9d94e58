import Foundation

extension LatchkeyClient {
    // MARK: - Favorites

    /// Favorites an item, or changes its nickname or position (`PUT /api/v1/favorites/{item_id}`).
    /// Idempotent; a member left ``FieldUpdate/unchanged`` keeps its stored value.
    @discardableResult
    public func favorite(
        _ itemID: String, nickname: FieldUpdate<String> = .unchanged, position: FieldUpdate<Int64> = .unchanged
    ) async throws -> Favorite {
        var body: [String: JSONValue] = [:]
        switch nickname {
        case .unchanged: break
        case .set(let value): body["nickname"] = .string(value)
        case .cleared: body["nickname"] = .null
        }
        switch position {
        case .unchanged: break
        case .set(let value): body["position"] = .int(value)
        case .cleared: body["position"] = .null
        }
        return try await self.authorized(Favorite.self, "PUT", Self.itemPath("favorites", itemID), body: body)
    }

    /// Removes an item from the favorites; no error when it was not one.
    public func unfavorite(_ itemID: String) async throws {
        _ = try await self.authorized("DELETE", Self.itemPath("favorites", itemID))
    }

    /// Flips an item's favorite flag and returns the new value. Not idempotent: the client never
    /// retries it after an answer that did not arrive.
    public func toggleFavorite(_ itemID: String) async throws -> Bool {
        try await self.authorized(Toggled.self, "POST", Self.itemPath("favorites", itemID) + "/toggle", repeat: .once).favorited
    }

    /// One page of the favorites (`GET /api/v1/favorites`); `limit` 1–200.
    public func favoritesPage(cursor: String? = nil, limit: Int = 50, order: FavoritesOrder = .recent) async throws
        -> Page<Favorite>
    {
        var query = Self.pageQuery(cursor: cursor, limit: limit)
        query.append(("order", order.rawValue))
        return try await self.authorized(Page<Favorite>.self, "GET", "/api/v1/favorites", query: query)
    }

    /// Every favorite, a page of `pageSize` at a time.
    public func favorites(order: FavoritesOrder = .recent, pageSize: Int = 50) -> PagedSequence<Favorite> {
        PagedSequence { cursor in try await self.favoritesPage(cursor: cursor, limit: pageSize, order: order) }
    }

    // MARK: - Read and unlikes

    /// Marks an item read.
    @discardableResult
    public func markRead(_ itemID: String) async throws -> ReadMark {
        try await self.authorized(ReadMark.self, "PUT", Self.itemPath("read", itemID))
    }

    /// Marks an item unread; no error when it was not read.
    public func markUnread(_ itemID: String) async throws {
        _ = try await self.authorized("DELETE", Self.itemPath("read", itemID))
    }

    /// Marks many items read or unread at once (at most 500); returns how many changed.
    @discardableResult
    public func setRead(_ read: Bool, for itemIDs: [String]) async throws -> Int {
        let body: [String: JSONValue] = ["item_ids": .array(itemIDs.map(JSONValue.string)), "read": .bool(read)]
        return try await self.authorized(BatchResult.self, "POST", "/api/v1/read/batch", body: body).updated
    }

    /// One page of the read items, most recently read first.
    public func readPage(cursor: String? = nil, limit: Int = 50) async throws -> Page<ReadMark> {
        try await self.authorized(Page<ReadMark>.self, "GET", "/api/v1/read", query: Self.pageQuery(cursor: cursor, limit: limit))
    }

    /// Every read item, a page of `pageSize` at a time.
    public func readItems(pageSize: Int = 50) -> PagedSequence<ReadMark> {
        PagedSequence { cursor in try await self.readPage(cursor: cursor, limit: pageSize) }
    }

    /// Unlikes an item.
    @discardableResult
    public func unlike(_ itemID: String) async throws -> Unlike {
        try await self.authorized(Unlike.self, "PUT", Self.itemPath("unlikes", itemID))
    }

    /// Takes back an unlike; no error when there was none.
    public func removeUnlike(_ itemID: String) async throws {
        _ = try await self.authorized("DELETE", Self.itemPath("unlikes", itemID))
    }

    /// One page of the unliked items, most recent first.
    public func unlikesPage(cursor: String? = nil, limit: Int = 50) async throws -> Page<Unlike> {
        try await self.authorized(Page<Unlike>.self, "GET", "/api/v1/unlikes", query: Self.pageQuery(cursor: cursor, limit: limit))
    }

    /// Every unliked item, a page of `pageSize` at a time.
    public func unlikedItems(pageSize: Int = 50) -> PagedSequence<Unlike> {
        PagedSequence { cursor in try await self.unlikesPage(cursor: cursor, limit: pageSize) }
    }

    // MARK: - State

    /// The user's flags on each of `itemIDs` (at most 500), an entry for every id.
    public func state(of itemIDs: [String]) async throws -> [String: ItemState] {
        let body: [String: JSONValue] = ["item_ids": .array(itemIDs.map(JSONValue.string))]
        return try await self.authorized(StateQuery.self, "POST", "/api/v1/state/query", body: body).items
    }

    /// One page of the changes feed after `cursor` (nil: from the start). ``ContentSync`` keeps
    /// the cursor for you.
    public func changes(since cursor: String?, limit: Int? = nil) async throws -> ChangesPage {
        var query: [(String, String)] = []
        if let cursor { query.append(("since", cursor)) }
        if let limit { query.append(("limit", String(limit))) }
        return try await self.authorized(ChangesPage.self, "GET", "/api/v1/state/changes", query: query)
    }

    // MARK: - Paths and bodies

    static func itemPath(_ collection: String, _ itemID: String) -> String {
        "/api/v1/\(collection)/\(GatewayConnection.pathSegment(itemID))"
    }

    static func pageQuery(cursor: String?, limit: Int) -> [(String, String)] {
        var query = [("limit", String(limit))]
        if let cursor { query.append(("cursor", cursor)) }
        return query
    }

    private struct Toggled: Decodable {
        var favorited: Bool
    }

    private struct BatchResult: Decodable {
        var updated: Int
    }

    private struct StateQuery: Decodable {
        var items: [String: ItemState]
    }
}
