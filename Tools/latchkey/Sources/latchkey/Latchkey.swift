import ArgumentParser

/// `latchkey`: the operator's command line. Keys and migrations work on the folder and the
/// database directly; `users` calls the running backends over RPC with `SERVICE_TOKEN`.
@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Operate a latchkey deployment: signing keys, database migrations, users.",
        discussion: """
            Exit status: 0 done; 1 the operation failed; 2 a setting is missing or wrong; \
            3 no such user; 4 a backend, Postgres or Redis is unreachable (try again); 64 bad usage.
            """,
        subcommands: [Keygen.self, Migrate.self, Users.self])
}
