/// How a ``RedisClient`` connects: where, how many connections, and how long to wait.
public struct RedisConfiguration: Sendable {
    /// Server address, credentials and database; `rediss://` speaks TLS.
    public var url: RedisURL
    /// The TLS settings a `rediss://` URL needs (trusted authorities, client certificate);
    /// a `rediss://` connection without them fails to open, saying so.
    public var tls: RedisTLSContext?
    /// Connections (and threads running their blocking calls); at least 1.
    public var poolSize: Int = 4
    /// Longest wait for TCP connect, AUTH and SELECT.
    public var connectTimeout: Duration = .seconds(2)
    /// Longest wait for one reply (socket send/receive timeout). Blocking commands that
    /// wait server-side longer than this (`BLPOP` with a long timeout) fail with `.timeout`.
    public var commandTimeout: Duration = .seconds(5)
    /// Longest time a command may queue for a free connection before failing with `.poolTimeout`.
    public var poolTimeout: Duration = .seconds(5)

    public init(url: RedisURL, poolSize: Int = 4, tls: RedisTLSContext? = nil) {
        self.url = url
        self.tls = tls
        self.poolSize = max(1, poolSize)
    }
}
