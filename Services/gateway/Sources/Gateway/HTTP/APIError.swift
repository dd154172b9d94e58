import FoundationEssentials
import HTTPTypes
import Hummingbird
import ServiceProtocol

/// An error as the public API answers it: a status, a catalogue code and a message for people,
/// in the body `{"error":{"code","message","request_id"}}`. Handlers just `throw` it.
struct APIError: HTTPResponseError {
    var status: HTTPResponse.Status
    var code: ErrorCode
    var message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
        if code == .invalidDPoPProof {
            // RFC 9449 section 7.1: the DPoP challenge, with the one algorithm accepted.
            self.headers[.wwwAuthenticate] = #"DPoP error="invalid_dpop_proof", algs="ES256""#
        } else if status == .unauthorized {
            self.headers[.wwwAuthenticate] = "Bearer"
        }
    }

    /// A backend's error, with the status the catalogue gives its code.
    init(_ error: RPCError) {
        self.init(Self.status(for: error.code), error.code, error.message)
    }

    static func badRequest(_ message: String) -> APIError { APIError(.badRequest, .badRequest, message) }
    static let unauthorized = APIError(.unauthorized, .unauthorized, "The access token is missing or not valid; please sign in again")
    static let tokenExpired = APIError(.unauthorized, .tokenExpired, "The access token has expired; refresh it and try again")
    static let sessionRevoked = APIError(.unauthorized, .sessionRevoked, "You have been signed out; please sign in again")
    static let invalidDPoPProof = APIError(
        .unauthorized, .invalidDPoPProof, "This request needs a valid DPoP proof signed with the device's key")
    static let notFound = APIError(.notFound, .notFound, "Not found")
    static let payloadTooLarge = APIError(.contentTooLarge, .payloadTooLarge, "The request body is too large")
    static let unsupportedMediaType = APIError(
        .unsupportedMediaType, .unsupportedMediaType, "Send the body as JSON, with Content-Type: application/json")
    static let serviceUnavailable = APIError(
        .serviceUnavailable, .serviceUnavailable, "The service is temporarily unavailable, please retry")
    static let internalError = APIError(.internalServerError, .internal, "Something went wrong on our side")

    /// The HTTP status of each catalogue code (DESIGN.md section 6), in one place.
    static func status(for code: ErrorCode) -> HTTPResponse.Status {
        switch code {
        case .badRequest: .badRequest
        case .unauthorized, .tokenExpired, .sessionRevoked, .invalidIdentityToken, .invalidRefreshToken, .refreshTokenReused,
            .invalidDPoPProof:
            .unauthorized
        case .forbidden, .userInactive: .forbidden
        case .notFound: .notFound
        case .identityAlreadyLinked, .lastIdentity, .conflict: .conflict
        case .payloadTooLarge: .contentTooLarge
        case .unsupportedMediaType: .unsupportedMediaType
        case .rateLimited: .tooManyRequests
        case .serviceUnavailable, .deadlineExceeded: .serviceUnavailable
        default: .internalServerError
        }
    }

    private struct Body: Encodable {
        struct Detail: Encodable {
            var code: String
            var message: String
            var requestID: String

            enum CodingKeys: String, CodingKey {
                case code, message
                case requestID = "request_id"
            }
        }

        var error: Detail
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        let requestID = context.logger.requestID ?? ""
        let body = Body(error: .init(code: self.code.rawValue, message: self.message, requestID: requestID))
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: self.status, headers: headers,
            body: .init(byteBuffer: try JSONCoding.encode(body)))
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`: taken from the client or generated, echoed, and passed to the backends.
    static let requestID = Self("X-Request-ID")!
}
