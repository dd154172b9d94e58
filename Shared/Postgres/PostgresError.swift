/// Everything the Postgres client reports. Messages are for logs only; none carries the
/// connection URL or its password.
public enum PostgresError: Error, Sendable, Hashable {
    /// Opening (or reopening) a server connection failed.
    case connectionFailed(String)
    /// The server connection broke during the call; the connection is discarded.
    case connectionLost
    /// No pooled connection became free within `acquireTimeout`.
    case poolTimeout
    /// The client was shut down.
    case clientShutDown
    /// SQLSTATE 23505, with the name of the violated constraint when the server gives it.
    case uniqueViolation(constraint: String?)
    /// Any other error the server reported for a statement.
    case query(sqlState: String, message: String)
    /// A column's value could not be read as the requested Swift type.
    case decoding(column: String, message: String)
    /// A bind parameter the server could never accept (e.g. text holding a NUL byte).
    case invalidParameter(index: Int, message: String)

    /// True for a violated unique constraint (SQLSTATE 23505).
    public var isUniqueViolation: Bool {
        if case .uniqueViolation = self { return true }
        return false
    }

    /// The statement itself was refused or failed (by the server, or a parameter the client
    /// would not send) while the connection is fine: a statement that carried several callers'
    /// calls together (`StatementLine`) is worth running call by call.
    public var failedInTheServer: Bool {
        switch self {
        case .query, .uniqueViolation, .invalidParameter: true
        default: false
        }
    }

    /// The SQLSTATE the server reported, if the error came from the server.
    public var sqlState: String? {
        switch self {
        case .uniqueViolation: "23505"
        case .query(let sqlState, _): sqlState
        default: nil
        }
    }
}

extension PostgresError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .connectionFailed(let message): "postgres connection failed: \(message)"
        case .connectionLost: "postgres connection lost"
        case .poolTimeout: "timed out waiting for a free postgres connection"
        case .clientShutDown: "postgres client is shut down"
        case .uniqueViolation(let constraint): "unique violation (\(constraint ?? "unknown constraint"))"
        case .query(let sqlState, let message): "postgres error \(sqlState): \(message)"
        case .decoding(let column, let message): "cannot decode column \(column): \(message)"
        case .invalidParameter(let index, let message): "invalid parameter $\(index): \(message)"
        }
    }
}
