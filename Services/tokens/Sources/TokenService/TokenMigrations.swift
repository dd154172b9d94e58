import Postgres

/// The schema `tokens` migrations, in order.
enum TokenMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "create sessions",
            sql: String(decoding: PackageResources._1_create_sessions_sql, as: UTF8.self)),
    ]
}
