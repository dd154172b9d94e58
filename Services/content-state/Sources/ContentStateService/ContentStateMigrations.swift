import Postgres

/// The schema `content` migrations, in order.
enum ContentStateMigrations {
    static let all: [Migration] = []
}
