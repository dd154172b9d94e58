import ContentStateAPI
import ServiceProtocol

extension ContentStateMethods {
    static func registerState(on router: inout RPCRouter, store: ContentStore) {
        router.registerRaw(ContentState.stateQuery) { (params: StateQueryParams, _) -> RawJSON in
            let table = try ItemFlagsTable(validating: params.itemIDs, maximum: store.configuration.maxBatch)
            return try await store.flags(user: params.userID, of: table).rawJSON
        }

        router.registerRaw(ContentState.stateChanges) { (params: ChangesParams, _) -> RawJSON in
            let limit = try PageLimit.validated(params.limit)
            let since = try cursor(params.since, .changes)?.key ?? 0
            return try await store.changes(user: params.userID, after: since, limit: limit).rawJSON
        }

        router.register(ContentState.userDelete) { (params: UserParams, _) -> UserDeletionResult in
            UserDeletionResult(deleted: try await store.deleteAll(user: params.userID))
        }

        router.register(ContentState.userMerge) { (params: UserMergeParams, _) -> UserMergeResult in
            try await store.merge(guest: params.userID, into: params.intoUserID)
        }

        router.register(ContentState.userCounts) { (params: UserParams, _) -> UserContentCounts in
            try await store.counts(user: params.userID)
        }
    }
}
