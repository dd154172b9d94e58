import Postgres

/// The schema `tokens` migrations, in order.
enum TokenMigrations {
    static let all: [Migration] = []
}
