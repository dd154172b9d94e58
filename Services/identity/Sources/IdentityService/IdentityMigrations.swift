import Postgres

/// The schema `identity` migrations, in order, compiled into the executable so it needs no
/// files at run time. The tables arrive with the identity issue.
enum IdentityMigrations {
    static let all: [Migration] = []
}
