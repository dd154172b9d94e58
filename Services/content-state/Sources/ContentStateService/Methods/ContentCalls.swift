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

extension ContentCalls {
    /// What the calls need of their connection's role: to read schema content's tables, and to
    /// insert into and update `item_states` and `user_versions` (the write functions run as
    /// their caller).
    static let neededPrivileges = ["SELECT", "INSERT", "UPDATE"].flatMap { privilege in
        ["content.item_states", "content.user_versions"].map { (table: $0, privilege: privilege) }
    }

    /// Throws `ContentPrivilegesMissing` naming each grant the connection's role lacks: a role
    /// made for the read-only reads of the release before fails here (the gateway's readiness)
    /// rather than on a user's write. One statement; it reaches Postgres, so it is a ping too.
    public func checkPrivileges() async throws {
        let rows = try await store.postgres.query(Self.missingPrivileges)
        let missing = try rows.map { "\(try $0.decode("privilege", as: String.self)) on \(try $0.decode("table_name", as: String.self))" }
        guard missing.isEmpty else { throw ContentPrivilegesMissing(missing: missing) }
    }

    static let missingPrivileges = """
        SELECT n.table_name, n.privilege FROM (VALUES \(
            neededPrivileges.map { "('\($0.table)', '\($0.privilege)')" }.joined(separator: ", "))) AS n(table_name, privilege)
        WHERE CASE WHEN to_regclass(n.table_name) IS NULL THEN true ELSE NOT has_table_privilege(n.table_name, n.privilege) END
        ORDER BY 1, 2
        """
}

/// The connection's role may not do what the content calls do (`ContentCalls.checkPrivileges`):
/// each missing grant as "INSERT on content.item_states".
public struct ContentPrivilegesMissing: Error, CustomStringConvertible, Sendable {
    public var missing: [String]

    public var description: String {
        "the role of CONTENT_DATABASE_URL lacks \(missing.joined(separator: ", ")) (deploy/postgres-init/10-latchkey-roles.sh grants them)"
    }
}
