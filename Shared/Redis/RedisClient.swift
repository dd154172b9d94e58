import Logging
import Synchronization

/// An async Redis client over hiredis's blocking API, with a pool of connections.
///
/// Blocking calls run on a dedicated `NIOThreadPool` (one hop per command), never on
/// Swift's cooperative pool. Broken connections are replaced on the next call, so the
/// same client keeps working across a Redis restart. Call ``shutdown()`` when done.
public final class RedisClient: Sendable {
    let configuration: RedisConfiguration
    let logger: Logger
    private let pool: RedisConnectionPool
    let subscriptions = Mutex(SubscriberRegistry())

    public init(configuration: RedisConfiguration, logger: Logger) {
        var logger = logger
        logger[metadataKey: "redis.server"] = "\(configuration.url.host):\(configuration.url.port)/\(configuration.url.database)"
        self.configuration = configuration
        self.logger = logger
        self.pool = RedisConnectionPool(configuration: configuration, logger: logger)
    }

    /// Runs one command; a server error reply throws ``RedisError/server(_:)``.
    public func command(_ arguments: [String]) async throws -> RedisValue {
        try await run(RedisCommand(arguments))
    }

    public func command(_ arguments: String...) async throws -> RedisValue {
        try await run(RedisCommand(arguments))
    }

    /// Runs one command whose arguments may be raw bytes (binary values).
    public func command(_ arguments: [RedisArgument]) async throws -> RedisValue {
        try await run(RedisCommand(arguments))
    }

    /// Sends every command, then reads every reply: one round trip on one connection.
    /// Error replies come back in place as ``RedisValue/error(_:)``; only connection
    /// problems throw.
    public func pipeline(_ commands: [[String]]) async throws -> [RedisValue] {
        try await pipeline(commands.map(RedisCommand.init))
    }

    /// ``pipeline(_:)-([[String]])`` with binary-capable arguments.
    public func pipeline(_ commands: [[RedisArgument]]) async throws -> [RedisValue] {
        try await pipeline(commands.map(RedisCommand.init))
    }

    /// Checks that Redis answers `PONG`.
    public func ping() async throws {
        let reply = try await command("PING")
        guard reply == .string("PONG") else { throw RedisError.protocolError("unexpected PING reply \(reply)") }
    }

    /// Ends every subscription, lets running commands finish, and closes all connections.
    /// Later calls fail with ``RedisError/connectionFailed(_:)``.
    public func shutdown() async {
        let subscribers = subscriptions.withLock { registry in
            registry.isClosed = true
            defer { registry.subscribers.removeAll() }
            return Array(registry.subscribers.values)
        }
        for subscriber in subscribers {
            await subscriber.stop()
        }
        await pool.shutdown()
    }

    private func run(_ command: RedisCommand) async throws -> RedisValue {
        guard !command.isEmpty else { throw RedisError.protocolError("empty command") }
        let reply = try await pool.withConnection { connection throws(RedisError) in
            try connection.execute(command)
        }
        if case .error(let message) = reply { throw RedisError.server(message) }
        return reply
    }

    private func pipeline(_ commands: [RedisCommand]) async throws -> [RedisValue] {
        guard !commands.contains(where: \.isEmpty) else { throw RedisError.protocolError("empty command in pipeline") }
        guard !commands.isEmpty else { return [] }
        return try await pool.withConnection { connection throws(RedisError) in
            try connection.pipeline(commands)
        }
    }
}

/// The client's live subscriptions, closed for good by ``RedisClient/shutdown()``.
struct SubscriberRegistry {
    var isClosed = false
    var subscribers: [ObjectIdentifier: RedisSubscriber] = [:]
}
