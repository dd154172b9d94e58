import Foundation
import Logging
import NIOCore
import NIOFoundationCompat

/// The methods a server answers, each with its parameter and result types.
///
/// A handler receives decoded parameters and returns a result or throws; the router turns
/// both into response frames, so handlers never see JSON or the wire.
public struct RPCRouter: Sendable {
    /// Runs a method on parameters already decoded to its type and encodes the response.
    typealias Handler = @Sendable (_ params: ByteBuffer?, _ id: UInt64, _ context: RPCRequestContext) async -> ByteBuffer

    private(set) var handlers: [String: Handler] = [:]

    public init() {}

    /// The registered method names, sorted (the `hello` reply lists them).
    public var methods: [String] { self.handlers.keys.sorted() }

    /// Registers `method`. Parameters that do not decode get `bad_request` without calling `handler`.
    public mutating func register<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ method: String,
        params: Params.Type = Params.self,
        _ handler: @escaping @Sendable (Params, RPCRequestContext) async throws -> Result
    ) {
        self.add(method, Params.self) { params, id, context in
            EnvelopeWriter.result(id: id, result: try JSONCoders.encoder.encode(try await handler(params, context)))
        }
    }

    /// Registers `method` with a handler that writes its result JSON itself (`RawJSON`): for a
    /// large result on a hot path, where `JSONEncoder` would cost more than the work. Parameters
    /// and errors are handled as in `register`.
    public mutating func registerRaw<Params: Decodable & Sendable>(
        _ method: String,
        params: Params.Type = Params.self,
        _ handler: @escaping @Sendable (Params, RPCRequestContext) async throws -> RawJSON
    ) {
        self.add(method, Params.self) { params, id, context in
            EnvelopeWriter.result(id: id, result: try await handler(params, context).bytes)
        }
    }

    /// Registers a handler that decodes the params and turns whatever `respond` throws into an
    /// error response.
    private mutating func add<Params: Decodable & Sendable>(
        _ method: String, _ params: Params.Type,
        _ respond: @escaping @Sendable (Params, UInt64, RPCRequestContext) async throws -> ByteBuffer
    ) {
        self.handlers[method] = { paramsJSON, id, context in
            do {
                return try await respond(try IncomingRequest.decode(Params.self, from: paramsJSON), id, context)
            } catch {
                return RPCRouter.encodeError(RPCRouter.rpcError(for: error, logger: context.logger), id: id)
            }
        }
    }

    static let allocator = ByteBufferAllocator()

    /// Encodes an error response. Encoding an `ErrorEnvelope` cannot fail.
    static func encodeError(_ error: RPCError, id: UInt64) -> ByteBuffer {
        (try? JSONCoders.encoder.encodeAsByteBuffer(ErrorEnvelope(id: id, error: error), allocator: allocator))
            ?? ByteBuffer(string: #"{"v":1,"id":0,"error":{"code":"internal","message":"Internal error","retryable":false}}"#)
    }

    /// Maps what a handler threw to the catalogue; anything unknown is logged and becomes `internal`.
    static func rpcError(for error: any Error, logger: Logger) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as any RPCErrorConvertible:
            return error.rpcError
        case is CancellationError:
            return RPCError(.serviceUnavailable, "The request was cancelled")
        default:
            logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
            return .internalError
        }
    }
}
