import Postgres
import Testing

/// Migrations apply once, in order, atomically, even with several migrators at once.
@Suite struct MigratorTests {
    static func migrations(_ schema: String) -> [Migration] {
        [
            Migration(version: 1, name: "create items", sql: "CREATE TABLE \(schema).items (id int PRIMARY KEY)"),
            Migration(
                version: 2, name: "add name and seed",
                sql: """
                    ALTER TABLE \(schema).items ADD COLUMN name text;
                    INSERT INTO \(schema).items (id, name) VALUES (1, 'first');
                    """),
        ]
    }

    @Test func migrationsApplyOnceAndRerunningChangesNothing() async throws {
        let schema = TestDatabase.uniqueName("migrate")
        try await TestDatabase.withClient { client in
            try await Migrator.migrate(client, schema: schema, migrations: Self.migrations(schema), logger: TestDatabase.logger)
            try await Migrator.migrate(client, schema: schema, migrations: Self.migrations(schema), logger: TestDatabase.logger)
            let versions = try await client.query("SELECT version, name FROM \(schema).schema_migrations ORDER BY version")
            #expect(try versions.map { try $0.decode("version", as: Int.self) } == [1, 2])
            #expect(try versions[1].decode("name", as: String.self) == "add name and seed")
            #expect(try await client.query("SELECT * FROM \(schema).items").count == 1)
            try await client.execute("DROP SCHEMA \(schema) CASCADE")
        }
    }

    @Test func laterMigrationsApplyOnTopOfEarlierOnesInVersionOrder() async throws {
        let schema = TestDatabase.uniqueName("migrate")
        try await TestDatabase.withClient { client in
            let all = Self.migrations(schema)
            try await Migrator.migrate(client, schema: schema, migrations: [all[0]], logger: TestDatabase.logger)
            try await Migrator.migrate(client, schema: schema, migrations: all.reversed(), logger: TestDatabase.logger)
            let row = try #require(try await client.query("SELECT name FROM \(schema).items WHERE id = 1").first)
            #expect(try row.decode("name", as: String.self) == "first")
            try await client.execute("DROP SCHEMA \(schema) CASCADE")
        }
    }

    @Test func concurrentMigratorsFromThreeClientsApplyEachMigrationOnce() async throws {
        let schema = TestDatabase.uniqueName("migrate")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await TestDatabase.withClient(poolSize: 2) { client in
                        try await Migrator.migrate(
                            client, schema: schema, migrations: Self.migrations(schema), logger: TestDatabase.logger)
                    }
                }
            }
            try await group.waitForAll()
        }
        try await TestDatabase.withClient { client in
            #expect(try await client.query("SELECT * FROM \(schema).schema_migrations").count == 2)
            #expect(try await client.query("SELECT * FROM \(schema).items").count == 1)
            try await client.execute("DROP SCHEMA \(schema) CASCADE")
        }
    }

    @Test func failingMigrationLeavesNoTraceAndIsNotRecorded() async throws {
        let schema = TestDatabase.uniqueName("migrate")
        try await TestDatabase.withClient { client in
            let broken = Migration(
                version: 3, name: "broken", sql: "CREATE TABLE \(schema).half (id int); SELECT 1/0;")
            await #expect(throws: PostgresError.self) {
                try await Migrator.migrate(
                    client, schema: schema, migrations: Self.migrations(schema) + [broken], logger: TestDatabase.logger)
            }
            let versions = try await client.query("SELECT version FROM \(schema).schema_migrations ORDER BY version")
            #expect(try versions.map { try $0.decode("version", as: Int.self) } == [1, 2])
            let half = try await client.query("SELECT to_regclass($1)::text AS t", [.text("\(schema).half")])
            #expect(try half[0].decode("t", as: String?.self) == nil)
            try await client.execute("DROP SCHEMA \(schema) CASCADE")
        }
    }

    /// The compose deployment's roles (deploy/postgres-init): a role owns its schema, made for it
    /// beforehand, and may not create schemas in the database.
    @Test func aRoleMigratesTheSchemaItOwnsWithoutTheRightToCreateSchemas() async throws {
        let schema = TestDatabase.uniqueName("owned")
        let role = TestDatabase.uniqueName("role")
        let password = TestDatabase.uniqueName("pw")
        try await TestDatabase.withClient { admin in
            try await admin.execute("CREATE ROLE \(role) LOGIN PASSWORD '\(password)'")
            try await admin.execute("CREATE SCHEMA \(schema) AUTHORIZATION \(role)")
        }
        let roleURL = TestDatabase.url(try TestDatabase.url(), adding: "user=\(role)&password=\(password)")
        do {
            try await TestDatabase.withClient(url: roleURL) { client in
                await #expect(throws: PostgresError.self) {
                    try await client.execute("CREATE SCHEMA \(schema)_other")
                }
                try await Migrator.migrate(client, schema: schema, migrations: Self.migrations(schema), logger: TestDatabase.logger)
                try await Migrator.migrate(client, schema: schema, migrations: Self.migrations(schema), logger: TestDatabase.logger)
                #expect(try await client.query("SELECT * FROM \(schema).items").count == 1)
            }
        } catch {
            try await Self.drop(schema: schema, role: role)
            throw error
        }
        try await Self.drop(schema: schema, role: role)
    }

    static func drop(schema: String, role: String) async throws {
        try await TestDatabase.withClient { admin in
            try await admin.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            try await admin.execute("DROP ROLE IF EXISTS \(role)")
        }
    }

    @Test func schemaNamesThatAreNotPlainIdentifiersAreRejected() async throws {
        try await TestDatabase.withClient { client in
            for name in ["", "Upper", "1abc", "a-b", "public; DROP SCHEMA public", "\"quoted\"", String(repeating: "a", count: 64)] {
                await #expect(throws: MigrationError.invalidSchemaName(name)) {
                    try await Migrator.migrate(client, schema: name, migrations: [], logger: TestDatabase.logger)
                }
            }
        }
    }

    @Test func duplicateVersionsAreRejected() async throws {
        try await TestDatabase.withClient { client in
            let twice = [Migration(version: 1, name: "a", sql: "SELECT 1"), Migration(version: 1, name: "b", sql: "SELECT 2")]
            await #expect(throws: MigrationError.duplicateVersion(1)) {
                try await Migrator.migrate(client, schema: TestDatabase.uniqueName("dup"), migrations: twice, logger: TestDatabase.logger)
            }
        }
    }
}
