import ContentStateAPI
import Postgres

/// The content calls a client makes most (a page of favorites, the state of a screenful of
/// items, a page of the changes feed; a favorite put, removed or toggled, a read mark or unlike
/// set or removed, read marks in a batch), with their rules, as content-state answers them over
/// RPC and as the gateway answers them in its own process when it has its own connection to the
/// content schema (`CONTENT_DATABASE_URL`). One definition: the same validation, statements,
/// lines and JSON either way. Writers in several processes are safe: each write locks its
/// user's `user_versions` row in its statement, whoever sends it.
public struct ContentCalls: Sendable {
    let store: ContentStore

    init(store: ContentStore) {
        self.store = store
    }

    /// Calls on schema `content` through `postgres`, which must be migrated by content-state.
    public init(postgres: PostgresClient, configuration: ContentStateConfiguration) {
        self.store = ContentStore(postgres: postgres, configuration: configuration)
    }
}
