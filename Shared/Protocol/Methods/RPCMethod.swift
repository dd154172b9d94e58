import FoundationEssentials
import NIOCore

/// One method of a service's internal API: its wire name and the types of its params and
/// result. The service registers its handler through it and every caller calls through it, so
/// the contract between services is written once (in the service's API module, e.g.
/// `TokensAPI.refresh`) and the compiler holds both sides to it.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable {
    /// The name on the wire, `service.method`.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }
}

extension RPCRouter {
    /// Registers the handler of `method`.
    public mutating func register<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ handler: @escaping @Sendable (Params, RPCRequestContext) async throws -> Result
    ) {
        self.register(method.name, params: Params.self, handler)
    }

    /// Registers a handler of `method` that writes its result JSON itself (see `RawJSON`); the
    /// JSON must decode as `Result`, which is what callers receive.
    public mutating func registerRaw<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ handler: @escaping @Sendable (Params, RPCRequestContext) async throws -> RawJSON
    ) {
        self.registerRaw(method.name, params: Params.self, handler)
    }
}

extension RPCClient {
    /// Calls `method` and decodes its result.
    public func call<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, options: CallOptions = CallOptions()
    ) async throws -> Result {
        try await self.call(method.name, params, as: Result.self, options: options)
    }

    /// Calls `method` and returns the result's JSON as the server sent it, undecoded: for a
    /// caller that passes the result on as it is (the gateway's content routes).
    public func callReturningJSON<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, options: CallOptions = CallOptions()
    ) async throws -> ByteBuffer {
        let paramsJSON: Data
        do {
            paramsJSON = try JSONCoders.encode(params)
        } catch {
            throw RPCError.badRequest("Parameters of \(method.name) cannot be encoded")
        }
        return try await self.callJSON(method.name, params: paramsJSON, options: options)
    }
}
