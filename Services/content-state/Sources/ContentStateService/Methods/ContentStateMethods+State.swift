import ServiceProtocol

extension ContentStateMethods {
    static func registerState(on router: inout RPCRouter, store: ContentStore) {
        router.register("content.state.query") { (params: StateQueryParams, _) -> StateQueryResult in
            let ids = try ItemID.batch(params.itemIDs, maximum: store.configuration.maxBatch)
            return StateQueryResult(items: try await store.flags(user: params.userID, items: ids))
        }

        router.register("content.state.changes") { (params: ChangesParams, _) -> ChangesPage in
            let limit = try PageLimit.validated(params.limit)
            let since = try cursor(params.since, .changes)?.key ?? 0
            return try await store.changes(user: params.userID, after: since, limit: limit)
        }

        router.register("content.user.delete") { (params: UserParams, _) -> UserDeletionResult in
            UserDeletionResult(deleted: try await store.deleteAll(user: params.userID))
        }
    }
}
