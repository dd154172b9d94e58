import FoundationEssentials
import Logging
import NIOCore
import NIOFoundationEssentialsCompat

/// The methods a server answers, each with its parameter and result types.
///
/// A handler receives decoded parameters and returns a result or throws; the router turns
/// both into response frames, so handlers never see JSON or the wire.
public struct RPCRouter: Sendable {
    /// Runs a method on parameters already decoded to its type and encodes the response.
    typealias Handler = @Sendable (_ params: ByteBuffer?, _ id: UInt64, _ context: RPCRequestContext) async -> ByteBuffer

    /// A registered method: its handler and the metrics it records.
    struct Route: Sendable {
        let handler: Handler
        let metrics: CallMetrics
    }

    private(set) var routes: [String: Route] = [:]
    /// Calls of methods the router does not know, under `method="unknown"` so that callers
    /// cannot create new series.
    let unknownMethod = CallMetrics.rpcServer(method: "unknown")

    public init() {}

    /// The registered method names, sorted (the `hello` reply lists them).
    public var methods: [String] { self.routes.keys.sorted() }

    /// Registers `method`. Parameters that do not decode get `bad_request` without calling `handler`.
    /// Each call is counted and timed (`CallMetrics.rpcServer`).
    public mutating func register<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ method: String,
        params: Params.Type = Params.self,
        _ handler: @escaping @Sendable (Params, RPCRequestContext) async throws -> Result
    ) {
        self.add(method, Params.self) { params, id, context in
            EnvelopeWriter.result(id: id, result: try JSONCoders.encode(try await handler(params, context)))
        }
    }

    /// Registers `method` with a handler that writes its result JSON itself (`RawJSON`): for a
    /// large result on a hot path, where `JSONEncoder` would cost more than the work. Parameters,
    /// errors and metrics are handled as in `register`.
    public mutating func registerRaw<Params: Decodable & Sendable>(
        _ method: String,
        params: Params.Type = Params.self,
        _ handler: @escaping @Sendable (Params, RPCRequestContext) async throws -> RawJSON
    ) {
        self.add(method, Params.self) { params, id, context in
            EnvelopeWriter.result(id: id, result: try await handler(params, context))
        }
    }

    /// Registers a handler that decodes the params, counts and times each call, and turns
    /// whatever `respond` throws into an error response.
    private mutating func add<Params: Decodable & Sendable>(
        _ method: String, _ params: Params.Type,
        _ respond: @escaping @Sendable (Params, UInt64, RPCRequestContext) async throws -> ByteBuffer
    ) {
        let metrics = CallMetrics.rpcServer(method: method)
        let route: Handler = { paramsJSON, id, context in
            let start = ContinuousClock.now
            do {
                let response = try await respond(try IncomingRequest.decode(Params.self, from: paramsJSON), id, context)
                metrics.record(nil, since: start)
                return response
            } catch {
                let rpcError = RPCRouter.rpcError(for: error, logger: context.logger)
                metrics.record(rpcError.code, since: start)
                return RPCRouter.encodeError(rpcError, id: id)
            }
        }
        self.routes[method] = Route(handler: route, metrics: metrics)
    }

    static let allocator = ByteBufferAllocator()

    /// Encodes an error response. Encoding an `ErrorEnvelope` cannot fail.
    static func encodeError(_ error: RPCError, id: UInt64) -> ByteBuffer {
        (try? JSONCoders.encoder.encodeAsByteBuffer(ErrorEnvelope(id: id, error: error), allocator: allocator))
            ?? ByteBuffer(string: #"{"v":1,"id":0,"error":{"code":"internal","message":"Internal error","retryable":false}}"#)
    }

    /// Maps what a handler threw to the catalogue; anything unknown is logged and becomes `internal`.
    public static func rpcError(for error: any Error, logger: Logger) -> RPCError {
        switch error {
        case let error as RPCError:
            return error
        case let error as any RPCErrorConvertible:
            let converted = error.rpcError
            if converted.code == .internal {
                logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
            }
            return converted
        case is CancellationError:
            return RPCError(.serviceUnavailable, "The request was cancelled")
        default:
            logger.error("Unhandled error in handler", metadata: ["error": "\(String(reflecting: error))"])
            return .internalError
        }
    }
}
