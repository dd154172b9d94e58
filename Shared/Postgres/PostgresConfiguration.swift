/// How a `PostgresClient` reaches its server and sizes its connection pool.
public struct PostgresConfiguration: Sendable {
    /// A libpq connection URI, e.g. `postgres://user:pass@host:5432/db?sslmode=disable`.
    /// It may hold a password, so it never appears in errors or logs.
    public var url: String
    /// The most server connections the client keeps open; they are opened on first use.
    public var poolSize: Int = 8
    /// How long opening one connection may take (libpq counts in whole seconds, at least 2).
    public var connectTimeout: Duration = .seconds(5)
    /// How long a caller waits for a free connection before failing with `PostgresError.poolTimeout`.
    public var acquireTimeout: Duration = .seconds(10)

    public init(url: String, poolSize: Int = 8) {
        self.url = url
        self.poolSize = poolSize
    }
}
