import Foundation
import Hummingbird
import NIOCore
import ServiceProtocol

/// Favorites, read marks, unlikes, state queries and the changes feed (DESIGN.md section 6):
/// each a call of content-state for the verified user, whose result is the response body as
/// content-state wrote it.
struct ContentRoutes: Sendable {
    let contentState: RPCClient
    let maxBodyBytes: Int

    func add(to group: RouterGroup<GatewayRequestContext>) {
        group.put("favorites/:item_id") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes, optional: true)
            var params = try Self.itemParams(context)
            params.copy(["nickname", "position"], from: body)
            return try await self.forward("content.favorites.put", params, idempotent: true, context: context)
        }
        group.delete("favorites/:item_id") { _, context in
            try await self.forwardNoContent("content.favorites.remove", try Self.itemParams(context), context: context)
        }
        group.post("favorites/:item_id/toggle") { _, context in
            // Not idempotent: a retry would toggle twice.
            try await self.forward("content.favorites.toggle", try Self.itemParams(context), idempotent: false, context: context)
        }
        group.get("favorites") { request, context in
            var params = try Self.listParams(request, context)
            if let order = request.uri.queryParameters["order"] { params["order"] = .string(String(order)) }
            return try await self.forward("content.favorites.list", params, idempotent: true, context: context)
        }
        self.addMarks("read", method: "read", markVerb: "mark", unmarkVerb: "unmark", to: group)
        self.addMarks("unlikes", method: "unlikes", markVerb: "put", unmarkVerb: "remove", to: group)
        group.post("read/batch") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            guard case .array = body["item_ids"] else { throw APIError.badRequest("item_ids must be an array of item ids") }
            guard case .bool = body["read"] else { throw APIError.badRequest("read must be true or false") }
            var params = try Self.userParams(context)
            params.copy(["item_ids", "read"], from: body)
            return try await self.forward("content.read.batch", params, idempotent: true, context: context)
        }
        group.post("state/query") { request, context in
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            guard case .array = body["item_ids"] else { throw APIError.badRequest("item_ids must be an array of item ids") }
            var params = try Self.userParams(context)
            params.copy(["item_ids"], from: body)
            return try await self.forward("content.state.query", params, idempotent: true, context: context)
        }
        group.get("state/changes") { request, context in
            var params = try Self.userParams(context)
            try Self.copyLimit(request, into: &params)
            if let since = request.uri.queryParameters["since"] { params["since"] = .string(String(since)) }
            return try await self.forward("content.state.changes", params, idempotent: true, context: context)
        }
    }

    /// `PUT`, `DELETE /{path}/{item_id}` and `GET /{path}` of read marks and unlikes.
    private func addMarks(_ path: String, method: String, markVerb: String, unmarkVerb: String, to group: RouterGroup<GatewayRequestContext>) {
        group.put("\(path)/:item_id") { _, context in
            try await self.forward("content.\(method).\(markVerb)", try Self.itemParams(context), idempotent: true, context: context)
        }
        group.delete("\(path)/:item_id") { _, context in
            try await self.forwardNoContent("content.\(method).\(unmarkVerb)", try Self.itemParams(context), context: context)
        }
        group.get(RouterPath(path)) { request, context in
            try await self.forward("content.\(method).list", try Self.listParams(request, context), idempotent: true, context: context)
        }
    }

    private func forward(_ method: String, _ params: JSONObject, idempotent: Bool, context: GatewayRequestContext) async throws -> Response {
        let result = try await self.contentState.callJSON(
            method, params: try params.encoded(), options: Backends.options(context, idempotent: idempotent))
        return jsonResponse(result)
    }

    private func forwardNoContent(_ method: String, _ params: JSONObject, context: GatewayRequestContext) async throws -> Response {
        _ = try await self.contentState.callJSON(method, params: try params.encoded(), options: Backends.options(context, idempotent: true))
        return Response(status: .noContent)
    }

    static func userParams(_ context: GatewayRequestContext) throws -> JSONObject {
        ["user_id": .string(try context.requireCaller().userID.uuidString.lowercased())]
    }

    /// The user and the percent-decoded `item_id` of the path; content-state checks its rules.
    static func itemParams(_ context: GatewayRequestContext) throws -> JSONObject {
        guard let raw = context.parameters.get("item_id"), let itemID = raw.removingPercentEncoding else {
            throw APIError.badRequest("The item id in the path is not valid percent-encoding")
        }
        var params = try Self.userParams(context)
        params["item_id"] = .string(itemID)
        return params
    }

    static func listParams(_ request: Request, _ context: GatewayRequestContext) throws -> JSONObject {
        var params = try Self.userParams(context)
        try Self.copyLimit(request, into: &params)
        if let cursor = request.uri.queryParameters["cursor"] { params["cursor"] = .string(String(cursor)) }
        return params
    }

    static func copyLimit(_ request: Request, into params: inout JSONObject) throws {
        guard let text = request.uri.queryParameters["limit"] else { return }
        guard let limit = Int64(text) else { throw APIError.badRequest("limit must be an integer from 1 to 200") }
        params["limit"] = .int(limit)
    }
}
