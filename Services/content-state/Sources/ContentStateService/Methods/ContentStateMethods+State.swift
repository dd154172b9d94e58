import ContentStateAPI
import ServiceProtocol

extension ContentStateMethods {
    static func registerState(on router: inout RPCRouter, store: ContentStore, calls: ContentCalls) {
        router.registerRaw(ContentState.stateQuery) { (params: StateQueryParams, _) in try await calls.state(params) }
        router.registerRaw(ContentState.stateChanges) { (params: ChangesParams, _) in try await calls.changes(params) }

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
