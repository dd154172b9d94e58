import Postgres
import ServiceKit
import ServiceProtocol

// Postgres' part of ServiceKit's StoreFailure mapping: `service_unavailable` for a connection
// that fails or breaks, a pool with no free connection in time, and the SQLSTATE classes 08,
// 53 and 57; `internal` for everything else.

extension PostgresError: RPCErrorConvertible {
    public var rpcError: RPCError {
        self.meansUnavailable ? StoreFailure.unavailable : .internalError
    }

    /// The server could not be reached, or refused the work for lack of resources or by an
    /// operator's or its own shutdown.
    public var meansUnavailable: Bool {
        switch self {
        case .connectionFailed, .connectionLost, .poolTimeout, .clientShutDown: true
        case .query(let state, _): Self.unavailableSQLStateClasses.contains(String(state.prefix(2)))
        case .uniqueViolation, .decoding, .invalidParameter: false
        }
    }

    /// Connection exception, insufficient resources, operator intervention.
    static let unavailableSQLStateClasses: Set<String> = ["08", "53", "57"]
}
