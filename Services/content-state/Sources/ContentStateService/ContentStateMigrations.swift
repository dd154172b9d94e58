import Postgres

/// The schema `content` migrations, in order.
enum ContentStateMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "create item_states",
            sql: String(decoding: PackageResources._1_create_item_states_sql, as: UTF8.self)),
    ]
}
