/// An error as it travels in a response envelope: a catalogue code, a message for people,
/// and whether the same call may succeed if tried again.
public struct RPCError: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String
    public var retryable: Bool

    public init(_ code: ErrorCode, _ message: String, retryable: Bool? = nil) {
        self.code = code
        self.message = message
        self.retryable = retryable ?? [.serviceUnavailable, .deadlineExceeded].contains(code)
    }

    public var description: String { "\(self.code.rawValue): \(self.message)" }

    public static func badRequest(_ message: String) -> RPCError { RPCError(.badRequest, message) }
    public static func notFound(_ message: String) -> RPCError { RPCError(.notFound, message) }
    public static func conflict(_ message: String) -> RPCError { RPCError(.conflict, message) }
    public static func unavailable(_ message: String) -> RPCError { RPCError(.serviceUnavailable, message) }
    public static let internalError = RPCError(.internal, "Internal error")
}

/// Domain errors of a service conform to this so that handlers can simply `throw` them;
/// the mapping to the catalogue lives in one place per error type.
public protocol RPCErrorConvertible: Error {
    var rpcError: RPCError { get }
}
