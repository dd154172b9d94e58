import ContentStateAPI
import Postgres
import ServiceProtocol

/// The RPC methods of content-state (documented in `docs/protocol.md`). Every method takes
/// the verified `user_id` and touches only that user's state.
public enum ContentStateMethods {
    /// Registers every `content.*` method on `router`, backed by `postgres` (schema `content`,
    /// migrated).
    public static func register(on router: inout RPCRouter, postgres: PostgresClient, configuration: ContentStateConfiguration) {
        let store = ContentStore(postgres: postgres, configuration: configuration)
        let calls = ContentCalls(store: store)
        registerFavorites(on: &router, calls: calls)
        registerMarks(on: &router, store: store, calls: calls)
        registerState(on: &router, store: store, calls: calls)
    }

    /// The cursor of a caller, if any, checked against the list it is used for.
    static func cursor(_ text: String?, _ kind: PageCursor.Kind) throws(ContentStateError) -> PageCursor? {
        guard let text else { return nil }
        return try PageCursor(decoding: text, as: kind)
    }
}
