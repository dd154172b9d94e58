import Foundation

/// Decodes the `params` member of one method's requests into its registered type.
typealias ParamsDecoder = @Sendable (KeyedDecodingContainer<EnvelopeKey>) throws -> any Sendable

/// The params decoder of every method a server answers, handed to `IncomingRequest` through
/// the decoder's `userInfo` so a request is parsed once, header and params together.
struct ParamsDecoders: Sendable {
    var byMethod: [String: ParamsDecoder]

    static let userInfoKey = CodingUserInfoKey(rawValue: "latchkey.rpc.paramsDecoders")!

    /// A JSON decoder that decodes `IncomingRequest`s with these decoders.
    func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.userInfo[Self.userInfoKey] = self
        return decoder
    }
}

/// A request as a server reads it: the envelope's fields and the outcome of decoding `params`
/// with the type its method registered (or why that failed).
struct IncomingRequest: Decodable {
    var v: Int?
    var id: UInt64
    var method: String
    var deadlineMs: UInt64?
    var requestID: String?
    var params: Result<any Sendable, RPCError>

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        self.id = try container.decode(UInt64.self, forKey: .id)
        self.v = try container.decodeIfPresent(Int.self, forKey: .v)
        self.method = try container.decode(String.self, forKey: .method)
        self.deadlineMs = try container.decodeIfPresent(UInt64.self, forKey: .deadlineMs)
        self.requestID = try container.decodeIfPresent(String.self, forKey: .requestID)
        let decoders = decoder.userInfo[ParamsDecoders.userInfoKey] as? ParamsDecoders
        guard let decodeParams = decoders?.byMethod[self.method] else {
            self.params = .failure(RPCError(.methodNotFound, "Unknown method \(self.method)"))
            return
        }
        do {
            self.params = .success(try decodeParams(container))
        } catch {
            self.params = .failure(.badRequest(describe(decodingError: error)))
        }
    }
}

/// The request id of a frame that did not decode as a request, if it has one; else 0.
struct RequestIDOnly: Decodable {
    var id: UInt64
}

/// A short, safe description of why JSON did not decode: the field path and the problem.
func describe(decodingError error: any Error) -> String {
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
