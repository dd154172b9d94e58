import Redis
import ServiceProtocol

// The one place where a failure of Postgres or Redis becomes a code of the RPC error catalogue,
// for every service alike: a handler lets the store's error go, and the router answers with
// the code given here (Postgres' conformance is in PostgresService, with the Postgres pool).
//
// - `service_unavailable` (retryable): the store cannot be reached or refused the work for
//   now: a connection that fails or breaks, a pool with no free connection in time, and the
//   SQLSTATE classes 08 (connection exception), 53 (insufficient resources) and 57 (operator
//   intervention: a cancelled statement, a server shutting down); Redis loading, busy, out of
//   memory, read-only or without its master.
// - `internal` (logged by the router, never shown): everything else, a bug of ours (a
//   constraint, a syntax or a decoding error).

extension RedisError: RPCErrorConvertible {
    public var rpcError: RPCError {
        self.meansUnavailable ? StoreFailure.unavailable : .internalError
    }

    /// The server could not be reached or answered that it cannot take the command now.
    public var meansUnavailable: Bool {
        switch self {
        case .connectionFailed, .connectionLost, .timeout, .poolTimeout: true
        case .server(let reply): StoreFailure.unavailableRedisReplies.contains { reply.hasPrefix($0) }
        case .invalidURL, .protocolError: false
        }
    }
}

/// What the mappings answer with.
public enum StoreFailure {
    public static let unavailable = RPCError(.serviceUnavailable, "The service is temporarily unavailable, please try again")
    static let unavailableRedisReplies = ["LOADING", "BUSY", "OOM", "READONLY", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN", "NOREPLICAS"]
}
