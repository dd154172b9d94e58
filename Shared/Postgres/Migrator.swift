import Logging

/// Brings a schema up to date: creates it unless it exists, then applies every migration not
/// yet recorded in `<schema>.schema_migrations`, in version order, each in its own transaction
/// under an advisory lock, so replicas that start together apply each migration exactly once.
/// A schema made beforehand for a role that owns it and may create nothing else (the compose
/// deployment's per-service roles, deploy/postgres-init) is migrated by that role as it is.
public enum Migrator {
    public static func migrate(
        _ client: PostgresClient, schema: String, migrations: [Migration], logger: Logger
    ) async throws {
        guard isPlainIdentifier(schema) else { throw MigrationError.invalidSchemaName(schema) }
        var seen = Set<Int>()
        for migration in migrations where !seen.insert(migration.version).inserted {
            throw MigrationError.duplicateVersion(migration.version)
        }
        let quoted = "\"\(schema)\""
        let table = "\(quoted).schema_migrations"
        let applied: Set<Int> = try await client.withTransaction { connection in
            try await lock(schema, on: connection)
            // Not CREATE SCHEMA IF NOT EXISTS: Postgres checks the right to create schemas in
            // the database before it looks whether this one exists.
            let existing = try await connection.query(
                "SELECT 1 FROM pg_namespace WHERE nspname = $1", [.text(schema)])
            if existing.isEmpty {
                try await connection.execute("CREATE SCHEMA \(quoted)")
            }
            try await connection.execute("""
                CREATE TABLE IF NOT EXISTS \(table) (
                    version int PRIMARY KEY,
                    name text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let rows = try await connection.query("SELECT version FROM \(table)")
            return Set(try rows.map { try $0.decode("version", as: Int.self) })
        }
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !applied.contains(migration.version) {
            let didApply = try await client.withTransaction { connection in
                try await lock(schema, on: connection)
                // Another replica may have applied it while we waited for the lock.
                let done = try await connection.query(
                    "SELECT 1 FROM \(table) WHERE version = $1", [.int(migration.version)])
                guard done.isEmpty else { return false }
                try await connection.runScript(migration.sql)
                try await connection.execute(
                    "INSERT INTO \(table) (version, name, applied_at) VALUES ($1, $2, now())",
                    [.int(migration.version), .text(migration.name)])
                return true
            }
            if didApply {
                logger.info(
                    "applied migration",
                    metadata: [
                        "postgres.schema": "\(schema)",
                        "postgres.migration.version": "\(migration.version)",
                        "postgres.migration.name": "\(migration.name)",
                    ])
            }
        }
    }

    /// Serialises migrators of one schema until the current transaction ends.
    private static func lock(_ schema: String, on connection: PostgresConnection) async throws {
        _ = try await connection.query("SELECT pg_advisory_xact_lock(hashtext($1))", [.text(schema)])
    }

    /// Only such names are spliced into SQL (quoted, so reserved words work too).
    static func isPlainIdentifier(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard let first = bytes.first, bytes.count <= 63 else { return false }
        let isLetter = { (byte: UInt8) in (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || byte == UInt8(ascii: "_") }
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        return isLetter(first) && bytes.allSatisfy { isLetter($0) || isDigit($0) }
    }
}
