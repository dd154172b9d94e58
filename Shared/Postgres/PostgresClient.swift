import Logging
import NIOPosix
import Synchronization

/// An async Postgres client over libpq with a pool of up to `poolSize` connections.
/// Blocking libpq calls run on a private `NIOThreadPool`, never on Swift's cooperative pool.
/// Call `shutdown()` when done.
public final class PostgresClient: Sendable {
    public let configuration: PostgresConfiguration
    let logger: Logger
    private let threadPool: NIOThreadPool
    /// Reads the replies of statements sent without the thread pool; nil if epoll could not be set up.
    private let replies: PostgresReplyLoop?
    private let pool: ConnectionPool
    private let nextConnectionID = Atomic<Int>(1)

    public init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        self.pool = ConnectionPool(size: configuration.poolSize, acquireTimeout: configuration.acquireTimeout)
        // One thread per connection: a connection never waits for a thread.
        self.threadPool = NIOThreadPool(numberOfThreads: max(1, configuration.poolSize))
        self.threadPool.start()
        self.replies = PostgresReplyLoop()
    }

    /// Runs a statement on a pooled connection and returns its rows, their cells in `results`'
    /// format.
    public func query(_ sql: String, _ bindings: [PostgresValue] = [], results: PostgresResultFormat = .text) async throws -> [PostgresRow] {
        let connection = try await lease()
        do {
            let rows = try await connection.query(sql, bindings, results: results)
            await giveBack(connection)
            return rows
        } catch {
            await giveBack(connection)
            throw error
        }
    }

    /// Runs a statement on a pooled connection and returns the number of affected rows.
    @discardableResult
    public func execute(_ sql: String, _ bindings: [PostgresValue] = []) async throws -> Int {
        let connection = try await lease()
        do {
            let count = try await connection.execute(sql, bindings)
            await giveBack(connection)
            return count
        } catch {
            await giveBack(connection)
            throw error
        }
    }

    /// Lends one connection to `body` and takes it back however `body` ends.
    /// A connection left broken or inside a transaction is closed rather than reused.
    public func withConnection<T: Sendable>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await lease()
        do {
            let result = try await body(connection)
            await giveBack(connection)
            return result
        } catch {
            await giveBack(connection)
            throw error
        }
    }

    /// `SELECT 1` on a pooled connection, for health checks.
    public func ping() async throws {
        _ = try await query("SELECT 1")
    }

    /// Fails waiting callers, closes all connections (lent ones as they come back) and
    /// stops the thread pool. Later calls fail with `PostgresError.clientShutDown`.
    public func shutdown() async {
        for connection in pool.shutDown() {
            await connection.close()
        }
        try? await threadPool.shutdownGracefully()
        replies?.stop()
    }

    /// A connection for one caller: an idle one, or a new one if the pool has room.
    private func lease() async throws -> PostgresConnection {
        switch try await pool.acquire() {
        case .connection(let connection):
            connection.markLeased()
            return connection
        case .openNew:
            do {
                return try await open()
            } catch {
                pool.releaseSlot()
                throw error
            }
        }
    }

    private func giveBack(_ connection: PostgresConnection) async {
        let reusable = connection.isReusable
        if pool.release(connection, reusable: reusable) {
            if !reusable {
                logger.info("discarding postgres connection", metadata: ["postgres.connection.id": "\(connection.id)"])
            }
            await connection.close()
        }
    }

    private func open() async throws -> PostgresConnection {
        let id = nextConnectionID.add(1, ordering: .relaxed).oldValue
        let url = configuration.url
        let timeout = configuration.connectTimeout
        let threadPool = self.threadPool
        let replies = self.replies
        do {
            let connection = try await threadPool.runBlocking {
                PostgresConnection(
                    id: id, libpq: try LibPQConnection.connect(url: url, connectTimeout: timeout),
                    threadPool: threadPool, replies: replies)
            }
            logger.debug("opened postgres connection", metadata: ["postgres.connection.id": "\(id)"])
            return connection
        } catch {
            logger.warning("cannot open postgres connection", metadata: ["postgres.error": "\(error)"])
            throw error
        }
    }
}
