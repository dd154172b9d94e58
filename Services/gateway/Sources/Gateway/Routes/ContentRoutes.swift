import ContentStateAPI
import ContentStateService
import FoundationEssentials
import Hummingbird
import NIOCore
import ServiceProtocol
import TextCoding

/// Favorites, read marks, unlikes, state queries and the changes feed (DESIGN.md section 6):
/// each a call of content-state for the verified user, whose result is the response body as
/// content-state wrote it; with `calls`, a favorites page, a state query, a changes page and
/// every write are answered here by content-state's own code (`ContentCalls`), the same body
/// without the hop. The read and unlikes lists go to content-state either way.
struct ContentRoutes: Sendable {
    let contentState: RPCClient
    /// The content calls answered in this process, from the content schema, when the gateway
    /// has its own connection to it (`CONTENT_DATABASE_URL`); nil: over RPC.
    let calls: ContentCalls?
    let maxBodyBytes: Int

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.put("favorites/:item_id") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes, optional: true)
            let item = try Self.item(context)
            let params = FavoritePutParams(
                userID: item.userID, itemID: item.itemID, nickname: try body.textUpdate("nickname"),
                position: try body.integerUpdate("position"))
            if let calls = self.calls { return try await Self.answer(context) { try await calls.putFavorite(params) } }
            return try await self.forward(ContentState.favoritesPut, params, idempotent: true, context: context)
        }
        group.delete("favorites/:item_id") { _, context in
            let item = try Self.item(context)
            if let calls = self.calls { return try await Self.answerNoContent(context) { try await calls.removeFavorite(item) } }
            return try await self.forwardNoContent(ContentState.favoritesRemove, item, context: context)
        }
        group.post("favorites/:item_id/toggle") { _, context in
            let item = try Self.item(context)
            if let calls = self.calls { return try await Self.answer(context) { try await calls.toggleFavorite(item) } }
            // Not idempotent: a retry would toggle twice.
            return try await self.forward(ContentState.favoritesToggle, item, idempotent: false, context: context)
        }
        group.get("favorites") { request, context in
            let page = try Self.page(request, context)
            var order: FavoritesOrder?
            if let text = request.uri.queryParameters["order"] {
                guard let value = FavoritesOrder(rawValue: String(text)) else {
                    throw APIError.badRequest("order must be one of: \(FavoritesOrder.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                order = value
            }
            let params = FavoritesListParams(userID: page.userID, order: order, limit: page.limit, cursor: page.cursor)
            if let calls = self.calls { return try await Self.answer(context) { try await calls.favorites(params) } }
            return try await self.forward(ContentState.favoritesList, params, idempotent: true, context: context)
        }
        self.addMarks(
            "read", mark: (ContentState.readMark, ContentCalls.markRead), unmark: (ContentState.readUnmark, ContentCalls.unmarkRead),
            list: ContentState.readList, to: group)
        self.addMarks(
            "unlikes", mark: (ContentState.unlikesPut, ContentCalls.unlike), unmark: (ContentState.unlikesRemove, ContentCalls.removeUnlike),
            list: ContentState.unlikesList, to: group)
        group.post("read/batch") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            let params = ReadBatchParams(
                userID: try Self.userID(context), itemIDs: try body.itemIDs(), read: try body.requiredBool("read"))
            if let calls = self.calls { return try await Self.answer(context) { try await calls.markReadBatch(params) } }
            return try await self.forward(ContentState.readBatch, params, idempotent: true, context: context)
        }
        group.post("state/query") { request, context in
            let itemIDs = try await JSONBody.itemIDs(request, limit: self.maxBodyBytes)
            let params = StateQueryParams(userID: try Self.userID(context), itemIDs: itemIDs)
            if let calls = self.calls { return try await Self.answer(context) { try await calls.state(params) } }
            return try await self.forward(ContentState.stateQuery, params, idempotent: true, context: context)
        }
        group.get("state/changes") { request, context in
            let since = request.uri.queryParameters["since"].map(String.init)
            let params = ChangesParams(userID: try Self.userID(context), since: since, limit: try Self.limit(request))
            if let calls = self.calls { return try await Self.answer(context) { try await calls.changes(params) } }
            return try await self.forward(ContentState.stateChanges, params, idempotent: true, context: context)
        }
    }

    /// `PUT`, `DELETE /{path}/{item_id}` and `GET /{path}` of read marks and unlikes: the
    /// mark and unmark as content-state's method, or as `ContentCalls`' in this process.
    private func addMarks<Mark: Encodable & Sendable>(
        _ path: String,
        mark: (RPCMethod<ItemParams, Mark>, @Sendable (ContentCalls) -> (ItemParams) async throws -> Mark),
        unmark: (RPCMethod<ItemParams, RemovalResult>, @Sendable (ContentCalls) -> (ItemParams) async throws -> RemovalResult),
        list: RPCMethod<PageParams, MarksPage<Mark>>, to group: RouterGroup<GatewayRequestContext>
    ) {
        group.put("\(path)/:item_id") { _, context in
            let item = try Self.item(context)
            if let calls = self.calls { return try await Self.answer(context) { try await mark.1(calls)(item) } }
            return try await self.forward(mark.0, item, idempotent: true, context: context)
        }
        group.delete("\(path)/:item_id") { _, context in
            let item = try Self.item(context)
            if let calls = self.calls { return try await Self.answerNoContent(context) { try await unmark.1(calls)(item) } }
            return try await self.forwardNoContent(unmark.0, item, context: context)
        }
        group.get(RouterPath(path)) { request, context in
            try await self.forward(list, try Self.page(request, context), idempotent: true, context: context)
        }
    }

    private func forward<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, idempotent: Bool, context: GatewayRequestContext
    ) async throws -> Response {
        jsonResponse(
            try await self.contentState.callReturningJSON(method, params, options: Backends.options(context, idempotent: idempotent)))
    }

    /// A read answered in this process: its JSON.
    private static func answer(_ context: GatewayRequestContext, _ read: () async throws -> RawJSON) async throws -> Response {
        try await self.inProcess(context) { jsonResponse(try await read().bytes) }
    }

    /// A write answered in this process: its result as content-state encodes it (the bytes the
    /// RPC path forwards).
    private static func answer<Result: Encodable>(_ context: GatewayRequestContext, _ write: () async throws -> Result) async throws -> Response {
        try await self.inProcess(context) { jsonResponse(ByteBuffer(data: try RPCJSON.encode(try await write()))) }
    }

    /// A removal answered in this process: 204 whether or not it changed anything, as over RPC.
    private static func answerNoContent(_ context: GatewayRequestContext, _ write: () async throws -> RemovalResult) async throws -> Response {
        try await self.inProcess(context) {
            _ = try await write()
            return Response(status: .noContent)
        }
    }

    /// `respond`'s response, or its error as content-state would have answered it over RPC.
    private static func inProcess(_ context: GatewayRequestContext, _ respond: () async throws -> Response) async throws -> Response {
        do {
            return try await respond()
        } catch {
            throw RPCRouter.rpcError(for: error, logger: context.logger)
        }
    }

    private func forwardNoContent<Result>(
        _ method: RPCMethod<ItemParams, Result>, _ params: ItemParams, context: GatewayRequestContext
    ) async throws -> Response {
        _ = try await self.contentState.callReturningJSON(method, params, options: Backends.options(context, idempotent: true))
        return Response(status: .noContent)
    }

    static func userID(_ context: GatewayRequestContext) throws -> UUID {
        try context.requireCaller().userID
    }

    /// The user and the percent-decoded `item_id` of the path; content-state checks its rules.
    static func item(_ context: GatewayRequestContext) throws -> ItemParams {
        // Most ids have no escape: those are taken as they are.
        guard let raw = context.parameters.get("item_id"),
            let itemID = raw.utf8.contains(UInt8(ascii: "%")) ? PercentDecoding.decode(raw) : raw
        else {
            throw APIError.badRequest("The item id in the path is not valid percent-encoding")
        }
        return ItemParams(userID: try Self.userID(context), itemID: itemID)
    }

    /// The user, `limit` and `cursor` of a list request.
    static func page(_ request: Request, _ context: GatewayRequestContext) throws -> PageParams {
        PageParams(
            userID: try Self.userID(context), limit: try Self.limit(request),
            cursor: request.uri.queryParameters["cursor"].map(String.init))
    }

    /// `limit` from the query; its range is content-state's rule (and identity's for users).
    static func limit(_ request: Request) throws -> Int? {
        guard let text = request.uri.queryParameters["limit"] else { return nil }
        guard let limit = Int(text) else { throw APIError.badRequest("limit must be an integer from 1 to 200") }
        return limit
    }
}
