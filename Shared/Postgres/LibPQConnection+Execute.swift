import CLibPQ

/// What one statement produced: its rows (if any) and the affected-row count.
struct StatementOutcome: Sendable {
    var rows: [PostgresRow]
    var affectedRows: Int
    /// The command tag, e.g. `INSERT 0 1` or `ROLLBACK`.
    var commandTag: String
}

/// A statement sent by `LibPQConnection.send` whose reply is still to be read.
struct StatementInFlight: Sendable {
    var key: PreparedStatementCache.Key
    var wasOutsideTransaction: Bool
    /// The statement's result, once read.
    var outcome: Result<StatementOutcome, PostgresError>?
}

extension LibPQConnection {
    /// Runs one statement with bind parameters, results in `results`' format. The statement is
    /// prepared on this connection the first time it runs here and reused after that.
    func execute(_ sql: String, _ bindings: [PostgresValue], results: PostgresResultFormat = .text) throws(PostgresError) -> StatementOutcome {
        guard !isPoisoned else { throw .connectionLost }
        try verifyIfLeased()
        let parameters = try EncodedParameters(bindings)
        let key = PreparedStatementCache.Key(sql: sql, types: parameters.types)
        let wasOutsideTransaction = PQtransactionStatus(raw) == PQTRANS_IDLE
        do throws(PostgresError) {
            return try executePrepared(key, parameters, results)
        } catch where wasOutsideTransaction && Self.isStalePreparedStatement(error) {
            // Nothing ran and no transaction was cut short: prepare it afresh, once.
            return try executePrepared(key, parameters, results)
        }
    }

    /// Runs `key` as a prepared statement, preparing it first if this connection has not yet
    /// (or unprepared, with `PQexecParams`, once the cache is full).
    private func executePrepared(
        _ key: PreparedStatementCache.Key, _ parameters: EncodedParameters, _ results: PostgresResultFormat
    ) throws(PostgresError) -> StatementOutcome {
        let count = Int32(parameters.count)
        let name: String
        if let known = preparedStatements.name(for: key) {
            name = known
        } else if preparedStatements.isFull {
            let result = parameters.withUnsafeArrays { values, lengths, formats, types in
                PQexecParams(raw, key.sql, count, types, values, lengths, formats, results.rawValue)
            }
            return try outcome(of: result)
        } else {
            let fresh = preparedStatements.newName()
            let prepared = parameters.withUnsafeArrays { _, _, _, types in PQprepare(raw, fresh, key.sql, count, types) }
            // A statement the server rejects fails here exactly as running it would.
            _ = try outcome(of: prepared)
            preparedStatements.add(key, name: fresh)
            name = fresh
        }
        let result = parameters.withUnsafeArrays { values, lengths, formats, _ in
            PQexecPrepared(raw, name, count, values, lengths, formats, results.rawValue)
        }
        do throws(PostgresError) {
            return try outcome(of: result)
        } catch {
            if Self.isStalePreparedStatement(error) { preparedStatements.remove(key) }
            throw error
        }
    }

    /// Sends `sql` as the statement this connection has already prepared and returns without
    /// waiting for the reply (`receive` reads it), so that no thread waits on the network.
    /// Nil when that is not the case, or the parameters are large (sending could block the
    /// caller), or the connection must first be reopened: the caller uses `execute` instead.
    func send(_ sql: String, _ bindings: [PostgresValue], results: PostgresResultFormat = .text) throws(PostgresError) -> StatementInFlight? {
        guard !isPoisoned else { throw .connectionLost }
        guard verifyIfLeasedWithoutBlocking() else { return nil }
        let parameters = try EncodedParameters(bindings)
        guard parameters.buffer.count <= Self.largestSentWithoutWaiting else { return nil }
        let key = PreparedStatementCache.Key(sql: sql, types: parameters.types)
        guard let name = preparedStatements.name(for: key) else { return nil }
        let wasOutsideTransaction = PQtransactionStatus(raw) == PQTRANS_IDLE
        let sent = parameters.withUnsafeArrays { values, lengths, formats, _ in
            PQsendQueryPrepared(raw, name, Int32(parameters.count), values, lengths, formats, results.rawValue)
        }
        guard sent == 1 else {
            noteTransactionStatus()
            throw failure(of: nil)
        }
        return StatementInFlight(key: key, wasOutsideTransaction: wasOutsideTransaction)
    }

    /// Half a socket's smallest default send buffer (16 KiB): such a statement leaves at once.
    static let largestSentWithoutWaiting = 8 * 1024

    /// Reads what has arrived for the statement `send` sent, without blocking; nil while the
    /// reply is incomplete (wait until the socket is readable and call again).
    func receive(_ statement: inout StatementInFlight) -> Result<StatementOutcome, PostgresError>? {
        if PQconsumeInput(raw) == 0 {
            // Broken connection: libpq has no more results to give.
            statement.outcome = statement.outcome ?? .failure(failure(of: nil))
            while let result = PQgetResult(raw) { PQclear(result) }
            noteTransactionStatus()
            return statement.outcome
        }
        while PQisBusy(raw) == 0 {
            guard let result = PQgetResult(raw) else {
                noteTransactionStatus()  // the server said it is ready again: idle or in a transaction
                return statement.outcome ?? .failure(failure(of: nil))
            }
            // One statement makes one result; should more come, the first decides.
            let outcome = Result { () throws(PostgresError) in try self.outcome(of: result) }
            if statement.outcome == nil { statement.outcome = outcome }
        }
        return nil
    }

    /// The socket libpq talks to the server on.
    var socket: Int32 { PQsocket(raw) }

    /// The server no longer has the statement (someone ran `DEALLOCATE` or `DISCARD ALL`), or a
    /// schema change altered the type of the rows it returns; preparing it again cures both.
    static func isStalePreparedStatement(_ error: PostgresError) -> Bool {
        guard case .query(let sqlState, let message) = error else { return false }
        return sqlState == "26000" || (sqlState == "0A000" && message.hasPrefix("cached plan must not change result type"))
    }

    /// Runs SQL text that may hold several statements and no parameters (`PQexec`); for
    /// trusted SQL such as migrations.
    func runScript(_ sql: String) throws(PostgresError) {
        guard !isPoisoned else { throw .connectionLost }
        try verifyIfLeased()
        _ = try outcome(of: PQexec(raw, sql))
    }

    /// Converts (and frees) a `PGresult`.
    private func outcome(of result: OpaquePointer?) throws(PostgresError) -> StatementOutcome {
        defer {
            PQclear(result)
            noteTransactionStatus()
        }
        guard let result else { throw failure(of: nil) }
        switch PQresultStatus(result) {
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            return StatementOutcome(rows: rows(of: result), affectedRows: affectedRows(of: result), commandTag: commandTag(of: result))
        case PGRES_COMMAND_OK:
            return StatementOutcome(rows: [], affectedRows: affectedRows(of: result), commandTag: commandTag(of: result))
        case PGRES_EMPTY_QUERY:
            return StatementOutcome(rows: [], affectedRows: 0, commandTag: "")
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            // The connection is stuck in COPY mode; it must be dropped.
            isPoisoned = true
            throw .query(sqlState: "0A000", message: "COPY is not supported")
        default:
            throw failure(of: result)
        }
    }

    private func failure(of result: OpaquePointer?) -> PostgresError {
        if PQstatus(raw) != CONNECTION_OK { return .connectionLost }
        guard let result else { return .query(sqlState: "XX000", message: lastErrorMessage) }
        let sqlState = field(result, "C") ?? "XX000"
        if sqlState == "23505" { return .uniqueViolation(constraint: field(result, "n")) }
        let message = field(result, "M") ?? String(cString: PQresultErrorMessage(result))
        return .query(sqlState: sqlState, message: scrub(message))
    }

    private func field(_ result: OpaquePointer, _ code: Unicode.Scalar) -> String? {
        PQresultErrorField(result, Int32(code.value)).map { String(cString: $0) }
    }

    private func affectedRows(of result: OpaquePointer) -> Int {
        guard let text = PQcmdTuples(result) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    private func commandTag(of result: OpaquePointer) -> String {
        PQcmdStatus(result).map { String(cString: $0) } ?? ""
    }

    /// The result's rows, every cell's bytes (text, or binary when the statement asked for it)
    /// copied once into one buffer they share.
    private func rows(of result: OpaquePointer) -> [PostgresRow] {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let cellCount = rowCount * columnCount
        var starts = [Int32](repeating: 0, count: cellCount)
        var lengths = [Int32](repeating: -1, count: cellCount)
        var total = 0
        for row in 0..<rowCount {
            for column in 0..<columnCount where PQgetisnull(result, Int32(row), Int32(column)) == 0 {
                let length = PQgetlength(result, Int32(row), Int32(column))
                starts[row * columnCount + column] = Int32(total)
                lengths[row * columnCount + column] = length
                total += Int(length)
            }
        }
        let bytes = [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            for row in 0..<rowCount {
                for column in 0..<columnCount {
                    let cell = row * columnCount + column
                    let length = Int(lengths[cell])
                    guard length > 0 else { continue }
                    let source = UnsafeRawPointer(PQgetvalue(result, Int32(row), Int32(column))!)
                    UnsafeMutableRawPointer(buffer.baseAddress! + Int(starts[cell])).copyMemory(from: source, byteCount: length)
                }
            }
            initialized = total
        }
        let cells = PostgresCells(
            names: (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) },
            types: (0..<columnCount).map { PostgresDataType(oid: PQftype(result, Int32($0))) },
            isBinary: columnCount > 0 && PQfformat(result, 0) == PostgresResultFormat.binary.rawValue,
            bytes: bytes, starts: starts, lengths: lengths)
        return (0..<rowCount).map { PostgresRow(columns: cells, firstCell: $0 * columnCount) }
    }
}
