import Foundation
import Logging
import NIOCore
import NIOFoundationCompat

/// The methods a server answers, each with its parameter and result types.
///
/// A handler receives decoded parameters and returns a result or throws; the router turns
/// both into response frames, so handlers never see JSON or the wire.
public struct RPCRouter: Sendable {
    typealias Handler = @Sendable (_ frame: ByteBuffer, _ id: UInt64, _ context: RPCRequestContext) async -> ByteBuffer

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
        self.handlers[method] = { frame, id, context in
            let params: Params
            do {
                params = try JSONDecoder().decode(ParamsEnvelope<Params>.self, from: frame).params
            } catch {
                return RPCRouter.encodeError(.badRequest(RPCRouter.describe(decodingError: error)), id: id)
            }
            do {
                let result = try await handler(params, context)
                return try JSONEncoder().encodeAsByteBuffer(
                    ResultEnvelope(id: id, result: result), allocator: RPCRouter.allocator)
            } catch {
                return RPCRouter.encodeError(RPCRouter.rpcError(for: error, logger: context.logger), id: id)
            }
        }
    }

    static let allocator = ByteBufferAllocator()

    /// Encodes an error response. Encoding an `ErrorEnvelope` cannot fail.
    static func encodeError(_ error: RPCError, id: UInt64) -> ByteBuffer {
        (try? JSONEncoder().encodeAsByteBuffer(ErrorEnvelope(id: id, error: error), allocator: allocator))
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

    /// A short, safe description of why parameters did not decode: the field path and the problem.
    static func describe(decodingError error: any Error) -> String {
        guard let error = error as? DecodingError else { return "Invalid params" }
        func path(_ codingPath: [any CodingKey]) -> String {
            let keys = codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "params" : keys.joined(separator: ".")
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "Missing field \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "Invalid type for \(path(context.codingPath))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "Malformed JSON" : "Invalid value for \(path(context.codingPath))"
        @unknown default:
            return "Invalid params"
        }
    }
}
