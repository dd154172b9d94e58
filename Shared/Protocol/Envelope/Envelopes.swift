import Foundation

/// Version of the envelope format carried in `v`.
public let rpcProtocolVersion = 1

/// A failed response. `id` 0 means the error concerns the connection, not one request.
public struct ErrorEnvelope: Codable, Sendable {
    public var v = rpcProtocolVersion
    public var id: UInt64
    public var error: RPCError

    public init(id: UInt64, error: RPCError) {
        self.id = id
        self.error = error
    }
}

/// Parameters or result of a method that carries none: `{}`.
public struct Empty: Codable, Sendable, Hashable {
    public init() {}
}

/// Shared coders: creating them per message costs more than the small payloads they handle.
enum JSONCoders {
    static let encoder = JSONEncoder()
    static let decoder = JSONDecoder()
    static let emptyObject = Data("{}".utf8)
}
