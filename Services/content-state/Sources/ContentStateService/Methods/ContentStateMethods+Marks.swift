import ContentStateAPI
import ServiceProtocol

extension ContentStateMethods {
    static func registerMarks(on router: inout RPCRouter, store: ContentStore) {
        router.register(ContentState.readMark) { (params: ItemParams, _) -> ReadMark in
            let id = try ItemID(validating: params.itemID)
            let outcome = try await store.write(user: params.userID, items: [id], .markRead)
            guard let readAt = outcome.states[id]?.readAt else { throw RPCError.internalError }
            return ReadMark(itemID: id.value, readAt: readAt)
        }

        router.register(ContentState.readUnmark) { (params: ItemParams, _) -> RemovalResult in
            let id = try ItemID(validating: params.itemID)
            let outcome = try await store.write(user: params.userID, items: [id], .unmarkRead)
            return RemovalResult(changed: outcome.changed > 0)
        }

        router.register(ContentState.readList) { (params: PageParams, _) -> MarksPage<ReadMark> in
            let limit = try PageLimit.validated(params.limit)
            let page = try await store.marks(.read, user: params.userID, limit: limit, after: try cursor(params.cursor, .read))
            return MarksPage(items: page.items.map { ReadMark(itemID: $0.0, readAt: $0.1) }, nextCursor: page.next)
        }

        router.register(ContentState.readBatch) { (params: ReadBatchParams, _) -> ReadBatchResult in
            let ids = try ItemID.batch(params.itemIDs, maximum: store.configuration.maxBatch)
            guard !ids.isEmpty else { return ReadBatchResult(updated: 0) }
            let outcome = try await store.write(user: params.userID, items: ids, params.read ? .markRead : .unmarkRead)
            return ReadBatchResult(updated: outcome.changed)
        }

        router.register(ContentState.unlikesPut) { (params: ItemParams, _) -> Unlike in
            let id = try ItemID(validating: params.itemID)
            let outcome = try await store.write(user: params.userID, items: [id], .unlike)
            guard let unlikedAt = outcome.states[id]?.unlikedAt else { throw RPCError.internalError }
            return Unlike(itemID: id.value, unlikedAt: unlikedAt)
        }

        router.register(ContentState.unlikesRemove) { (params: ItemParams, _) -> RemovalResult in
            let id = try ItemID(validating: params.itemID)
            let outcome = try await store.write(user: params.userID, items: [id], .removeUnlike)
            return RemovalResult(changed: outcome.changed > 0)
        }

        router.register(ContentState.unlikesList) { (params: PageParams, _) -> MarksPage<Unlike> in
            let limit = try PageLimit.validated(params.limit)
            let page = try await store.marks(.unliked, user: params.userID, limit: limit, after: try cursor(params.cursor, .unliked))
            return MarksPage(items: page.items.map { Unlike(itemID: $0.0, unlikedAt: $0.1) }, nextCursor: page.next)
        }
    }
}
