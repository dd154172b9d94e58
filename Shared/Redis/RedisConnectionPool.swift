import CoreMetrics
import Logging
import NIOCore
import NIOPosix
import Synchronization

/// Runs blocking hiredis work on a `NIOThreadPool` with one connection per thread.
///
/// The thread pool's FIFO queue is the waiter queue: a job dequeued by a thread always
/// finds a connection slot, so acquiring costs no extra hop. Connections open lazily, are
/// checked for a server-side close before reuse, and are dropped after any I/O error, so
/// the next job opens a fresh one (this is how a Redis restart heals). The idle stack is
/// tiny hot state shared by the pool threads, hence a lock rather than an actor.
///
/// Gauges: `redis_pool_connections` (open), `redis_pool_connections_in_use` and
/// `redis_pool_waiters` (jobs queued for a thread).
final class RedisConnectionPool: Sendable {
    private let configuration: RedisConfiguration
    private let logger: Logger
    private let threads: NIOThreadPool
    private let idle = Mutex<[RedisConnection]>([])
    private let isShutDown = Atomic<Bool>(false)
    private let open = Meter(label: "redis_pool_connections")
    private let inUse = Meter(label: "redis_pool_connections_in_use")
    private let waiting = Meter(label: "redis_pool_waiters")

    init(configuration: RedisConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.threads = NIOThreadPool(numberOfThreads: configuration.poolSize)
        self.threads.start()
    }

    deinit {
        if !isShutDown.load(ordering: .relaxed) {
            // Never shut down: no job holds the pool any more, so the threads are idle;
            // stop them. The idle connections close as `idle` is released.
            threads.shutdownGracefully { _ in }
        }
    }

    /// Runs `body` on a pool thread with a healthy connection, returning the connection
    /// afterwards unless it broke.
    func withConnection<Result: Sendable>(
        _ body: @escaping @Sendable (RedisConnection) throws(RedisError) -> Result
    ) async throws -> Result {
        let enqueued = NIODeadline.now()
        let poolTimeout = TimeAmount(configuration.poolTimeout)
        waiting.increment()
        do {
            return try await threads.runIfActive { () throws(RedisError) -> Result in
                self.waiting.decrement()
                guard NIODeadline.now() - enqueued < poolTimeout else { throw .poolTimeout }
                let connection = try self.checkOut()
                self.inUse.increment()
                defer {
                    self.inUse.decrement()
                    self.checkIn(connection)
                }
                return try body(connection)
            }
        } catch is CancellationError {
            // The job never ran: the pool was shut down.
            waiting.decrement()
            guard isShutDown.load(ordering: .relaxed) else { throw CancellationError() }
            throw RedisError.connectionFailed("the Redis client is shut down")
        }
    }

    /// Stops the threads after the jobs already running, then closes every connection.
    func shutdown() async {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        try? await threads.shutdownGracefully()
        let closed = idle.withLock { idle in
            defer { idle.removeAll() }
            return idle.count
        }
        open.decrement(by: Double(closed))
    }

    private func checkOut() throws(RedisError) -> RedisConnection {
        while let connection = idle.withLock({ $0.popLast() }) {
            guard connection.hasPendingInput else { return connection }
            open.decrement()
            logger.info("Redis closed an idle connection; reconnecting")
        }
        do {
            let connection = try RedisConnection(
                url: configuration.url,
                tlsContext: configuration.tls,
                connectTimeout: configuration.connectTimeout,
                commandTimeout: configuration.commandTimeout)
            open.increment()
            logger.debug("opened a Redis connection")
            return connection
        } catch {
            logger.debug("cannot connect to Redis", metadata: ["redis.error": "\(error)"])
            throw error
        }
    }

    private func checkIn(_ connection: RedisConnection) {
        if connection.isBroken {
            open.decrement()
            logger.warning("dropped a broken Redis connection", metadata: ["redis.error": "\(connection.errorText)"])
        } else {
            idle.withLock { $0.append(connection) }
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
