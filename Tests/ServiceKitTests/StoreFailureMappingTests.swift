import Postgres
import PostgresService
import Redis
import ServiceKit
import ServiceProtocol
import Testing

/// Every store failure maps to one catalogue code, the same in every service.
@Suite struct StoreFailureMappingTests {
    @Test(arguments: [
        (PostgresError.connectionFailed("refused"), ErrorCode.serviceUnavailable),
        (.connectionLost, .serviceUnavailable),
        (.poolTimeout, .serviceUnavailable),
        (.clientShutDown, .serviceUnavailable),
        (.query(sqlState: "08006", message: "connection failure"), .serviceUnavailable),
        (.query(sqlState: "53300", message: "too many connections"), .serviceUnavailable),
        (.query(sqlState: "53100", message: "disk full"), .serviceUnavailable),
        (.query(sqlState: "57014", message: "canceling statement"), .serviceUnavailable),
        (.query(sqlState: "57P01", message: "terminating connection"), .serviceUnavailable),
        (.query(sqlState: "42601", message: "syntax error"), .internal),
        (.query(sqlState: "22P02", message: "invalid input syntax"), .internal),
        (.uniqueViolation(constraint: "users_pkey"), .internal),
        (.decoding(column: "id", message: "not a uuid"), .internal),
        (.invalidParameter(index: 1, message: "NUL"), .internal),
    ])
    func postgresFailures(_ failure: PostgresError, _ code: ErrorCode) {
        let error = RPCRouterMapping.map(failure)
        #expect(error.code == code, "\(failure)")
        #expect(error.retryable == (code == .serviceUnavailable))
        #expect(!error.message.contains(failure.description), "no store detail reaches the caller")
    }

    @Test(arguments: [
        (RedisError.connectionFailed("refused"), ErrorCode.serviceUnavailable),
        (.connectionLost, .serviceUnavailable),
        (.timeout, .serviceUnavailable),
        (.poolTimeout, .serviceUnavailable),
        (.server("LOADING Redis is loading the dataset in memory"), .serviceUnavailable),
        (.server("OOM command not allowed when used memory > 'maxmemory'."), .serviceUnavailable),
        (.server("READONLY You can't write against a read only replica."), .serviceUnavailable),
        (.server("ERR value is not an integer or out of range"), .internal),
        (.protocolError("unexpected reply"), .internal),
        (.invalidURL("redis://"), .internal),
    ])
    func redisFailures(_ failure: RedisError, _ code: ErrorCode) {
        let error = RPCRouterMapping.map(failure)
        #expect(error.code == code, "\(failure)")
        #expect(error.retryable == (code == .serviceUnavailable))
    }
}

/// What a handler's thrown store error becomes on the wire.
enum RPCRouterMapping {
    static func map(_ error: any Error) -> RPCError {
        (error as? any RPCErrorConvertible)?.rpcError ?? .internalError
    }
}
