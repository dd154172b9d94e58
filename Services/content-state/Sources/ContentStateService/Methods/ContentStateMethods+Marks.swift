import ContentStateAPI
import ServiceProtocol

extension ContentStateMethods {
    static func registerMarks(on router: inout RPCRouter, store: ContentStore, calls: ContentCalls) {
        router.register(ContentState.readMark) { (params: ItemParams, _) in try await calls.markRead(params) }
        router.register(ContentState.readUnmark) { (params: ItemParams, _) in try await calls.unmarkRead(params) }
        router.register(ContentState.readBatch) { (params: ReadBatchParams, _) in try await calls.markReadBatch(params) }
        router.register(ContentState.unlikesPut) { (params: ItemParams, _) in try await calls.unlike(params) }
        router.register(ContentState.unlikesRemove) { (params: ItemParams, _) in try await calls.removeUnlike(params) }

        router.register(ContentState.readList) { (params: PageParams, _) -> MarksPage<ReadMark> in
            let limit = try PageLimit.validated(params.limit)
            let page = try await store.marks(.read, user: params.userID, limit: limit, after: try cursor(params.cursor, .read))
            return MarksPage(items: page.items.map { ReadMark(itemID: $0.0, readAt: $0.1) }, nextCursor: page.next)
        }

        router.register(ContentState.unlikesList) { (params: PageParams, _) -> MarksPage<Unlike> in
            let limit = try PageLimit.validated(params.limit)
            let page = try await store.marks(.unliked, user: params.userID, limit: limit, after: try cursor(params.cursor, .unliked))
            return MarksPage(items: page.items.map { Unlike(itemID: $0.0, unlikedAt: $0.1) }, nextCursor: page.next)
        }
    }
}
