import ContentStateAPI
import ContentStateService
import Foundation
import Hummingbird
import NIOCore
import ServiceProtocol

/// Favorites, read marks, unlikes, state queries and the changes feed (DESIGN.md section 6):
/// each a call of content-state for the verified user, whose result is the response body as
/// content-state wrote it; with `reads`, a favorites page, a state query and a changes page are
/// read here by content-state's own code (`ContentReads`), the same body without the hop.
struct ContentRoutes: Sendable {
    let contentState: RPCClient
    /// The reads answered in this process, from the content schema, when the gateway has
    /// its own read-only connection to it (`CONTENT_READ_DATABASE_URL`); nil: over RPC.
    let reads: ContentReads?
    let maxBodyBytes: Int

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.put("favorites/:item_id") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes, optional: true)
            let item = try Self.item(context)
            let params = FavoritePutParams(
                userID: item.userID, itemID: item.itemID, nickname: try body.textUpdate("nickname"),
                position: try body.integerUpdate("position"))
            return try await self.forward(ContentState.favoritesPut, params, idempotent: true, context: context)
        }
        group.delete("favorites/:item_id") { _, context in
            try await self.forwardNoContent(ContentState.favoritesRemove, try Self.item(context), context: context)
        }
        group.post("favorites/:item_id/toggle") { _, context in
            // Not idempotent: a retry would toggle twice.
            try await self.forward(ContentState.favoritesToggle, try Self.item(context), idempotent: false, context: context)
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
            if let reads = self.reads { return try await Self.answer(context) { try await reads.favorites(params) } }
            return try await self.forward(ContentState.favoritesList, params, idempotent: true, context: context)
        }
        self.addMarks("read", mark: ContentState.readMark, unmark: ContentState.readUnmark, list: ContentState.readList, to: group)
        self.addMarks(
            "unlikes", mark: ContentState.unlikesPut, unmark: ContentState.unlikesRemove, list: ContentState.unlikesList, to: group)
        group.post("read/batch") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            let params = ReadBatchParams(
                userID: try Self.userID(context), itemIDs: try body.itemIDs(), read: try body.requiredBool("read"))
            return try await self.forward(ContentState.readBatch, params, idempotent: true, context: context)
        }
        group.post("state/query") { request, context in
            let itemIDs = try await JSONBody.itemIDs(request, limit: self.maxBodyBytes)
            let params = StateQueryParams(userID: try Self.userID(context), itemIDs: itemIDs)
            if let reads = self.reads { return try await Self.answer(context) { try await reads.state(params) } }
            return try await self.forward(ContentState.stateQuery, params, idempotent: true, context: context)
        }
        group.get("state/changes") { request, context in
            let since = request.uri.queryParameters["since"].map(String.init)
            let params = ChangesParams(userID: try Self.userID(context), since: since, limit: try Self.limit(request))
            if let reads = self.reads { return try await Self.answer(context) { try await reads.changes(params) } }
            return try await self.forward(ContentState.stateChanges, params, idempotent: true, context: context)
        }
    }

    /// `PUT`, `DELETE /{path}/{item_id}` and `GET /{path}` of read marks and unlikes.
    private func addMarks<Mark>(
        _ path: String, mark: RPCMethod<ItemParams, Mark>, unmark: RPCMethod<ItemParams, RemovalResult>,
        list: RPCMethod<PageParams, MarksPage<Mark>>, to group: RouterGroup<GatewayRequestContext>
    ) {
        group.put("\(path)/:item_id") { _, context in
            try await self.forward(mark, try Self.item(context), idempotent: true, context: context)
        }
        group.delete("\(path)/:item_id") { _, context in
            try await self.forwardNoContent(unmark, try Self.item(context), context: context)
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

    /// A read answered in this process: its JSON, or its error as content-state would have
    /// answered it over RPC.
    private static func answer(_ context: GatewayRequestContext, _ read: () async throws -> RawJSON) async throws -> Response {
        do {
            return jsonResponse(try await read().bytes)
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
        // Most ids have no escape; Foundation's decoding goes through a CFString even then.
        guard let raw = context.parameters.get("item_id"),
            let itemID = raw.utf8.contains(UInt8(ascii: "%")) ? raw.removingPercentEncoding : raw
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
