import FoundationEssentials
import NIOCore

/// A request as a server reads it: the envelope's fields, with `params` still as bytes for
/// the method's own decoder.
struct IncomingRequest {
    /// A frame that is not a usable request; `id` is the request's when it could be read, else 0.
    struct Invalid: Error {
        var id: UInt64
        var message: String
    }

    var v: UInt64?
    var id: UInt64
    var method: String
    var deadlineMs: UInt64?
    var requestID: String?
    /// Whom the caller (the gateway) serves: the end user's address and user agent, for the audit trail.
    var origin: RPCCallOrigin?
    /// The `params` JSON; nil when absent or `null` (read as `{}`).
    var params: ByteBuffer?

    init(_ frame: ByteBuffer) throws(Invalid) {
        var id: UInt64 = 0
        do {
            let envelope = try FrameEnvelope(frame)
            guard let readID = try envelope.unsigned(.id) else { throw FrameEnvelope.Invalid(message: "Missing field id") }
            id = readID
            guard let method = try envelope.string(.method) else { throw FrameEnvelope.Invalid(message: "Missing field method") }
            self.id = readID
            self.method = method
            self.v = try envelope.unsigned(.v)
            self.deadlineMs = try envelope.unsigned(.deadlineMs)
            self.requestID = try envelope.string(.requestID)
            let clientIP = try envelope.string(.clientIP)
            let userAgent = try envelope.string(.userAgent)
            if clientIP != nil || userAgent != nil { self.origin = RPCCallOrigin(clientIP: clientIP, userAgent: userAgent) }
            self.params = envelope.slice(.params)
        } catch let error as FrameEnvelope.Invalid {
            throw Invalid(id: id, message: "Malformed request: \(error.message)")
        } catch {
            throw Invalid(id: id, message: "Malformed request")
        }
    }

    /// Decodes `params` as `T`; absent params read as `{}`. A failure names the field.
    static func decode<T: Decodable>(_ type: T.Type, from params: ByteBuffer?) throws(RPCError) -> T {
        do {
            if let params {
                return try JSONCoders.decode(T.self, from: params)
            }
            return try JSONCoders.decode(T.self, from: JSONCoders.emptyObject)
        } catch {
            throw .badRequest(describe(decodingError: error))
        }
    }
}

/// A short, safe description of why params did not decode: the field path (under `root`) and
/// the problem.
func describe(decodingError error: any Error, root: String? = "params") -> String {
    guard let error = error as? DecodingError else { return "Invalid params" }
    func path(_ codingPath: [any CodingKey]) -> String {
        ((root.map { [$0] } ?? []) + codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }).joined(separator: ".")
    }
    switch error {
    case .keyNotFound(let key, let context):
        return "Missing field \(path(context.codingPath + [key]))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
        return "Invalid type for \(path(context.codingPath))"
    case .dataCorrupted(let context):
        return context.codingPath.isEmpty ? "Malformed params" : "Invalid value for \(path(context.codingPath))"
    @unknown default:
        return "Invalid params"
    }
}
