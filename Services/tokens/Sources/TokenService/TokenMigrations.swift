import Postgres

/// The schema `tokens` migrations, in order.
enum TokenMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "create sessions",
            sql: String(decoding: PackageResources._1_create_sessions_sql, as: UTF8.self)),
        Migration(
            version: 2, name: "revocation copies",
            sql: String(decoding: PackageResources._2_revocation_copies_sql, as: UTF8.self)),
        Migration(
            version: 3, name: "refresh tokens without a foreign key",
            sql: String(decoding: PackageResources._3_refresh_tokens_without_foreign_key_sql, as: UTF8.self)),
        Migration(
            version: 4, name: "sessions bound to device keys",
            sql: String(decoding: PackageResources._4_sessions_bound_to_device_keys_sql, as: UTF8.self)),
        Migration(
            version: 5, name: "audit events",
            sql: String(decoding: PackageResources._5_audit_events_sql, as: UTF8.self)),
    ]
}
