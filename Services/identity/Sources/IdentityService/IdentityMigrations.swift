import Postgres

/// The schema `identity` migrations, in order, compiled into the executable so it needs no
/// files at run time.
enum IdentityMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "create users and identities",
            sql: String(decoding: PackageResources._1_create_users_and_identities_sql, as: UTF8.self)),
        Migration(
            version: 2, name: "apple notifications",
            sql: String(decoding: PackageResources._2_apple_notifications_sql, as: UTF8.self)),
        Migration(
            version: 3, name: "guest users",
            sql: String(decoding: PackageResources._3_guest_users_sql, as: UTF8.self)),
        Migration(
            version: 4, name: "email forwarding event time",
            sql: String(decoding: PackageResources._4_email_forwarding_event_time_sql, as: UTF8.self)),
        Migration(
            version: 5, name: "audit events",
            sql: String(decoding: PackageResources._5_audit_events_sql, as: UTF8.self)),
        Migration(
            version: 6, name: "user events",
            sql: String(decoding: PackageResources._6_user_events_sql, as: UTF8.self)),
    ]
}
