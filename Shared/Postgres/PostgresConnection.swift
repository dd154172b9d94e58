import NIOPosix
import Synchronization

/// One server connection, lent to a caller by `PostgresClient.withConnection` or
/// `withTransaction`. Its blocking libpq calls run on the client's thread pool, one at a time.
public final class PostgresConnection: Sendable {
    /// A number for logs, unique within the client.
    public let id: Int
    private let threadPool: NIOThreadPool
    private let libpq: Mutex<LibPQConnection>

    init(id: Int, libpq: consuming sending LibPQConnection, threadPool: NIOThreadPool) {
        self.id = id
        self.threadPool = threadPool
        self.libpq = Mutex(libpq)
    }

    /// Runs a statement and returns its rows (empty for statements that return none).
    public func query(_ sql: String, _ bindings: [PostgresValue] = []) async throws -> [PostgresRow] {
        try await run { try $0.execute(sql, bindings) }.rows
    }

    /// Runs a statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    public func execute(_ sql: String, _ bindings: [PostgresValue] = []) async throws -> Int {
        try await run { try $0.execute(sql, bindings) }.affectedRows
    }

    /// Runs SQL that may hold several statements and takes no parameters; for trusted SQL
    /// such as migrations, never for text built from input.
    func runScript(_ sql: String) async throws {
        try await run { try $0.runScript(sql) }
    }

    /// Runs one statement and returns its full outcome, command tag included.
    func outcome(_ sql: String, _ bindings: [PostgresValue] = []) async throws -> StatementOutcome {
        try await run { try $0.execute(sql, bindings) }
    }

    /// True when the connection can go back to the pool: open and outside any transaction.
    var isReusable: Bool {
        libpq.withLock { $0.isReusable }
    }

    /// Called when the pool lends the connection out again.
    func markLeased() {
        libpq.withLock { $0.checkBeforeNextCommand = true }
    }

    /// Closes the server connection (on the thread pool, or here if the pool has stopped).
    func close() async {
        _ = try? await run(evenIfStopped: true) { $0.close() }
    }

    /// Runs `body` with the libpq connection on a thread-pool thread, one call at a time.
    private func run<T: Sendable>(
        evenIfStopped: Bool = false, _ body: @escaping @Sendable (LibPQConnection) throws -> T
    ) async throws -> T {
        try await threadPool.runBlocking(evenIfStopped: evenIfStopped) {
            try self.libpq.withLock { try body($0) }
        }
    }
}
