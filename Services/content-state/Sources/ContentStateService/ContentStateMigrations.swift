import Postgres

/// The schema `content` migrations, in order.
enum ContentStateMigrations {
    static let all: [Migration] = [
        Migration(
            version: 1, name: "create item_states",
            sql: String(decoding: PackageResources._1_create_item_states_sql, as: UTF8.self)),
        Migration(
            version: 2, name: "write_items function",
            sql: String(decoding: PackageResources._2_write_items_function_sql, as: UTF8.self)),
        Migration(
            version: 3, name: "write_batch function",
            sql: String(decoding: PackageResources._3_write_batch_function_sql, as: UTF8.self)),
        Migration(
            version: 4, name: "write_users function",
            sql: String(decoding: PackageResources._4_write_users_function_sql, as: UTF8.self)),
        Migration(
            version: 5, name: "user row estimate",
            sql: String(decoding: PackageResources._5_user_row_estimate_sql, as: UTF8.self)),
        Migration(
            version: 6, name: "merge_guest function",
            sql: String(decoding: PackageResources._6_merge_guest_function_sql, as: UTF8.self)),
        Migration(
            version: 7, name: "write_entries function",
            sql: String(decoding: PackageResources._7_write_entries_function_sql, as: UTF8.self)),
    ]
}
