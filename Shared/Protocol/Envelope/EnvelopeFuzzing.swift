import NIOCore

/// What a server makes of one frame, for the fuzz targets (`Tools/fuzz`, `scripts/fuzz`): the
/// request's fields, or the message of its refusal. Package-only: nothing outside this package
/// reads frames this way.
package enum EnvelopeFuzzing {
    package struct Request: Sendable {
        package var id: UInt64
        package var method: String
        package var deadlineMs: UInt64?
        package var requestID: String?
        package var params: ByteBuffer?
    }

    package static func readRequest(_ frame: ByteBuffer) -> Result<Request, EnvelopeRefusal> {
        do {
            let request = try IncomingRequest(frame)
            return .success(
                Request(
                    id: request.id, method: request.method, deadlineMs: request.deadlineMs, requestID: request.requestID,
                    params: request.params))
        } catch {
            return .failure(EnvelopeRefusal(id: error.id, message: error.message))
        }
    }
}

/// Why a frame is not a request: the `bad_request` a server answers.
package struct EnvelopeRefusal: Error, Sendable {
    package var id: UInt64
    package var message: String
}
