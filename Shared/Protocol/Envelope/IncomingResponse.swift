import Foundation

/// Decodes the `result` member of one call's response into the type its caller expects.
typealias ResultDecoder = @Sendable (KeyedDecodingContainer<EnvelopeKey>) throws -> any Sendable

/// Finds the result decoder of a call in flight by id; set in the decoder's `userInfo` by the
/// connection's handler so that a response is parsed once. Used on that handler's event loop only.
final class ResultDecoderLookup: @unchecked Sendable {
    var decoderForID: (UInt64) -> ResultDecoder? = { _ in nil }

    static let userInfoKey = CodingUserInfoKey(rawValue: "latchkey.rpc.resultDecoders")!
}

/// A response as a client reads it: its id and either the decoded result, the error, or nil
/// when no call with that id is waiting any more.
struct IncomingResponse: Decodable {
    var id: UInt64
    var outcome: Result<any Sendable, RPCError>?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: EnvelopeKey.self)
        self.id = try container.decode(UInt64.self, forKey: .id)
        if let error = try container.decodeIfPresent(RPCError.self, forKey: .error) {
            self.outcome = .failure(error)
            return
        }
        let lookup = decoder.userInfo[ResultDecoderLookup.userInfoKey] as? ResultDecoderLookup
        guard let decodeResult = lookup?.decoderForID(self.id) else {
            self.outcome = nil
            return
        }
        do {
            self.outcome = .success(try decodeResult(container))
        } catch {
            self.outcome = .failure(RPCError(.internal, "The service's response could not be read"))
        }
    }
}
