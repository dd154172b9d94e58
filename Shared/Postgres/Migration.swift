/// One numbered schema change. `sql` may hold several statements; it runs in a transaction.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}

/// Why `Migrator.migrate` refused to start.
public enum MigrationError: Error, Sendable, Hashable {
    /// The schema name is not a plain lowercase identifier (`[a-z_][a-z0-9_]*`, ≤ 63 bytes).
    case invalidSchemaName(String)
    /// Two migrations share a version number.
    case duplicateVersion(Int)
}
