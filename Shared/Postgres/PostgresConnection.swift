import NIOPosix
import Synchronization

/// One server connection, lent to a caller by `PostgresClient.withConnection` or
/// `withTransaction`, used by one caller at a time.
///
/// A statement this connection has already prepared is sent from the caller's thread and its
/// reply read by the client's `PostgresReplyLoop`; everything else (preparing, reopening,
/// scripts, closing) runs as blocking libpq calls on the client's thread pool.
public final class PostgresConnection: Sendable {
    /// A number for logs, unique within the client.
    public let id: Int
    private let threadPool: NIOThreadPool
    private let replies: PostgresReplyLoop?
    private let libpq: Mutex<LibPQConnection>

    init(id: Int, libpq: consuming sending LibPQConnection, threadPool: NIOThreadPool, replies: PostgresReplyLoop?) {
        self.id = id
        self.threadPool = threadPool
        self.replies = replies
        self.libpq = Mutex(libpq)
    }

    /// Runs a statement and returns its rows (empty for statements that return none), their
    /// cells in `results`' format.
    public func query(_ sql: String, _ bindings: [PostgresValue] = [], results: PostgresResultFormat = .text) async throws -> [PostgresRow] {
        try await statement(sql, bindings, results: results).rows
    }

    /// Runs a statement and returns how many rows it inserted, updated or deleted.
    @discardableResult
    public func execute(_ sql: String, _ bindings: [PostgresValue] = []) async throws -> Int {
        try await statement(sql, bindings).affectedRows
    }

    /// Runs one statement: sent at once when it is prepared here already, else on the pool.
    private func statement(_ sql: String, _ bindings: [PostgresValue], results: PostgresResultFormat = .text) async throws -> StatementOutcome {
        if let replies = self.replies,
            let (statement, socket) = try self.libpq.withLock({ libpq throws(PostgresError) in
                try libpq.send(sql, bindings, results: results).map { ($0, libpq.socket) }
            })
        {
            switch await replies.reply(to: statement, on: self, socket: socket) {
            case .success(let outcome):
                return outcome
            case .failure(let error):
                guard LibPQConnection.isStalePreparedStatement(error) else { throw error }
                self.libpq.withLock { $0.preparedStatements.remove(statement.key) }
                // Nothing ran and no transaction was cut short: prepare it afresh (below), once.
                guard statement.wasOutsideTransaction else { throw error }
            }
        }
        return try await run { try $0.execute(sql, bindings, results: results) }
    }

    /// Reads what has arrived of `statement`'s reply, on the calling thread without blocking
    /// (`PostgresReplyLoop`, once the socket is readable); nil while it is incomplete.
    func receive(_ statement: inout StatementInFlight) -> Result<StatementOutcome, PostgresError>? {
        self.libpq.withLock { $0.receive(&statement) }
    }

    /// Runs SQL that may hold several statements and takes no parameters; for trusted SQL
    /// such as migrations, never for text built from input.
    func runScript(_ sql: String) async throws {
        try await run { try $0.runScript(sql) }
    }

    /// Runs one statement and returns its full outcome, command tag included.
    func outcome(_ sql: String, _ bindings: [PostgresValue] = []) async throws -> StatementOutcome {
        try await statement(sql, bindings)
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
