import CLibPQ
import FoundationEssentials
#if canImport(Glibc)
import Glibc
import TextCoding
#endif

/// One libpq `PGconn`. Every method blocks on the network, so it is only ever used on a
/// thread-pool thread, behind the lock of its `PostgresConnection`.
final class LibPQConnection {
    private let handle: OpaquePointer
    /// The password in the URL, scrubbed from any libpq message before it leaves this type.
    private let password: String?
    /// Whether the server connection was idle outside a transaction after the last command.
    /// Only such a connection may be silently reopened: nothing of the caller's is lost.
    private(set) var isIdle = true
    /// Set when the pool hands the connection out: check before the next command that the
    /// server has not hung up meanwhile (e.g. it restarted).
    var checkBeforeNextCommand = false
    /// Set when the connection is closed or in a state no command can recover from (COPY mode).
    var isPoisoned = false
    /// The statements this server connection has prepared (see `PreparedStatementCache`).
    var preparedStatements = PreparedStatementCache()

    private init(handle: OpaquePointer, password: String?) {
        self.handle = handle
        self.password = password
    }

    private var isClosed = false

    deinit { close() }

    /// Says goodbye to the server and frees the handle; afterwards every command fails.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        isPoisoned = true
        PQfinish(handle)
    }

    /// Opens a connection and prepares the session (UTC, ISO dates, UTF-8).
    static func connect(url: String, connectTimeout: Duration) throws(PostgresError) -> LibPQConnection {
        let timeoutSeconds = max(2, Int(connectTimeout.components.seconds) + (connectTimeout.components.attoseconds > 0 ? 1 : 0))
        // Entries after the expanded URL override what it says.
        let parameters = [
            ("dbname", url),
            ("connect_timeout", String(timeoutSeconds)),
            ("client_encoding", "UTF8"),
            ("fallback_application_name", "latchkey"),
        ]
        let handle = withCStringArrays(parameters) { keywords, values in
            PQconnectdbParams(keywords, values, 1)
        }
        guard let handle else { throw .connectionFailed("out of memory") }
        let connection = LibPQConnection(handle: handle, password: Self.password(in: url))
        guard PQstatus(handle) == CONNECTION_OK else {
            throw .connectionFailed(connection.lastErrorMessage)
        }
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
        try connection.prepareSession()
        return connection
    }

    /// True when the connection may go back to the pool as it is.
    var isReusable: Bool {
        !isPoisoned && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    /// Makes sure a connection just taken from the pool still reaches the server, and
    /// reopens it in place if the server hung up while it sat idle.
    func verifyIfLeased() throws(PostgresError) {
        guard checkBeforeNextCommand else { return }
        checkBeforeNextCommand = false
        guard isIdle else { return }
        drainUnsolicitedInput()
        guard PQstatus(handle) != CONNECTION_OK else { return }
        PQreset(handle)
        preparedStatements.removeAll()
        guard PQstatus(handle) == CONNECTION_OK else { throw .connectionFailed(lastErrorMessage) }
        try prepareSession()
    }

    /// `verifyIfLeased` without its blocking part: true when the connection needs no check or
    /// passed it; false when it must be reopened (then `verifyIfLeased` does that).
    func verifyIfLeasedWithoutBlocking() -> Bool {
        guard checkBeforeNextCommand else { return true }
        guard isIdle else {
            checkBeforeNextCommand = false
            return true
        }
        drainUnsolicitedInput()
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        checkBeforeNextCommand = false
        return true
    }

    /// A server that shuts down sends a FATAL message and closes the socket; an idle
    /// connection only notices once it reads. Reading that input marks it broken.
    private func drainUnsolicitedInput() {
        var rounds = 0
        while PQstatus(handle) == CONNECTION_OK, rounds < 4, socketIsReadable() {
            if PQconsumeInput(handle) == 0 { break }
            _ = PQisBusy(handle)  // parses (and drops) messages that arrived while idle
            while let notification = PQnotifies(handle) { PQfreemem(notification) }
            rounds += 1
        }
    }

    private func socketIsReadable() -> Bool {
        var descriptor = pollfd(fd: PQsocket(handle), events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, 0) > 0
    }

    /// The session's settings: times in UTC and ISO form, floats exact, and no parallel plans.
    /// Every statement of the services reads or writes a few rows of a user, where a parallel
    /// plan would start worker processes for each run: the planner chose one for the state
    /// queries folded into one statement (`ContentStore.selectFlags(probes:)`) whenever it
    /// planned them for their values (the first runs of a prepared statement), at several
    /// milliseconds a run where the plain plan takes a tenth of one.
    private func prepareSession() throws(PostgresError) {
        try runScript(
            "SET TimeZone TO 'UTC'; SET DateStyle TO 'ISO, MDY'; SET extra_float_digits TO 3; SET max_parallel_workers_per_gather TO 0")
    }

    /// libpq's last error, first line only, without the password.
    var lastErrorMessage: String {
        scrub(String(cString: PQerrorMessage(handle)))
    }

    func scrub(_ message: String) -> String {
        var message = message.trimmingWhitespaceAndNewlines()
        if let password, !password.isEmpty { message = message.replacingBytes(of: password, with: "***") }
        return message
    }

    /// Records whether the connection is idle outside a transaction after a command.
    func noteTransactionStatus() {
        isIdle = PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_IDLE
    }

    var raw: OpaquePointer { handle }

    private static func password(in url: String) -> String? {
        guard let options = PQconninfoParse(url, nil) else { return nil }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if strcmp(keyword, "password") == 0, let value = option.pointee.val { return String(cString: value) }
            option += 1
        }
        return nil
    }
}

/// Calls `body` with NUL-terminated keyword and value arrays for `PQconnectdbParams`.
private func withCStringArrays<R>(
    _ pairs: [(String, String)],
    _ body: (UnsafePointer<UnsafePointer<CChar>?>, UnsafePointer<UnsafePointer<CChar>?>) -> R
) -> R {
    let keywords = pairs.map { UnsafePointer(strdup($0.0)) } + [nil]
    let values = pairs.map { UnsafePointer(strdup($0.1)) } + [nil]
    defer {
        for pointer in keywords + values { free(UnsafeMutablePointer(mutating: pointer)) }
    }
    return body(keywords, values)
}
