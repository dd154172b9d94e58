import Foundation

/// What the gateway said about a refused request: the catalogue code, the HTTP status, the
/// message for people and the request id to quote to whoever runs the backend.
public struct ErrorDetail: Sendable, Hashable {
    public var status: Int
    public var code: String
    public var message: String
    /// The gateway's `X-Request-ID` for the request: every service's logs carry it.
    public var requestID: String?
    /// The answer's `Retry-After`, in seconds from when it arrived (429 and 503 send one).
    public var retryAfter: TimeInterval?

    public init(status: Int, code: String, message: String, requestID: String?, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.requestID = requestID
        self.retryAfter = retryAfter
    }
}

/// Every failure the client reports: one case per code of the gateway's error catalogue
/// (docs/api.md), plus the failures that happen before or after the gateway answers. (A
/// cancelled task gets `CancellationError` instead.)
///
/// Branch on the case, show ``ErrorDetail/message`` to people, and quote
/// ``requestID`` when reporting a problem.
public enum LatchkeyError: Error, Sendable {
    /// 400: a malformed body, a bad field, limit, cursor or item id.
    case badRequest(ErrorDetail)
    /// 401: the access token is missing or not valid. Sign in again.
    case unauthorized(ErrorDetail)
    /// 401: the access token is past its expiry. The client refreshes and retries once by itself;
    /// this reaches the app only when the retry was refused the same way.
    case tokenExpired(ErrorDetail)
    /// 401: the session was revoked (logout elsewhere, account deleted, admin). The client is
    /// now signed out.
    case sessionRevoked(ErrorDetail)
    /// 401: Apple's or Google's token failed verification.
    case invalidIdentityToken(ErrorDetail)
    /// 401: the refresh token is unknown, expired or revoked. The client is now signed out.
    case invalidRefreshToken(ErrorDetail)
    /// 401: a refresh token was used again after its grace window; the session is revoked and
    /// the client is now signed out.
    case refreshTokenReused(ErrorDetail)
    /// 403: not allowed.
    case forbidden(ErrorDetail)
    /// 403: the account is deactivated.
    case userInactive(ErrorDetail)
    /// 404: no such route, session or identity of this user.
    case notFound(ErrorDetail)
    /// 409: the provider identity belongs to another user.
    case identityAlreadyLinked(ErrorDetail)
    /// 409: the user's last identity cannot be unlinked.
    case lastIdentity(ErrorDetail)
    /// 409: a conflict, such as too many favorites or a second account of the same provider.
    case conflict(ErrorDetail)
    /// 413: the body is too large.
    case payloadTooLarge(ErrorDetail)
    /// 415: the body is not JSON.
    case unsupportedMediaType(ErrorDetail)
    /// 429: too many sign-ins or refreshes from this address; `retryAfter` is the gateway's
    /// `Retry-After` in seconds, when it sent one.
    case rateLimited(ErrorDetail, retryAfter: TimeInterval?)
    /// 503: a backend is unreachable. Retry later (``ErrorDetail/retryAfter`` says when, if the
    /// gateway or a proxy in front of it said).
    case serviceUnavailable(ErrorDetail)
    /// 500: a bug on the server.
    case `internal`(ErrorDetail)
    /// A catalogue code this version of the library does not know.
    case other(ErrorDetail)
    /// A response that is not the gateway's JSON error body (a proxy's error page, say); a 429
    /// or 503 without one is still ``rateLimited(_:retryAfter:)`` or ``serviceUnavailable(_:)``.
    case unexpectedResponse(status: Int, requestID: String?)
    /// A call that needs a signed-in user, made while signed out.
    case notSignedIn
    /// No response arrived: no network, a timeout, the request was cancelled. Nothing is known
    /// about whether the gateway acted on it.
    case transport(any Error)
    /// A success response whose body is not what the API documents.
    case decoding(any Error)
    /// The ``TokenStore`` failed to read, save or clear the tokens (the Keychain refused, a
    /// file could not be written).
    case tokenStore(any Error)

    /// The gateway's answer, when there was one in the catalogue's shape.
    public var detail: ErrorDetail? {
        switch self {
        case .badRequest(let detail), .unauthorized(let detail), .tokenExpired(let detail), .sessionRevoked(let detail),
            .invalidIdentityToken(let detail), .invalidRefreshToken(let detail), .refreshTokenReused(let detail),
            .forbidden(let detail), .userInactive(let detail), .notFound(let detail), .identityAlreadyLinked(let detail),
            .lastIdentity(let detail), .conflict(let detail), .payloadTooLarge(let detail), .unsupportedMediaType(let detail),
            .rateLimited(let detail, _), .serviceUnavailable(let detail), .internal(let detail), .other(let detail):
            detail
        case .unexpectedResponse, .notSignedIn, .transport, .decoding, .tokenStore:
            nil
        }
    }

    /// The catalogue code (`session_revoked`, ...), when the gateway sent one.
    public var code: String? { self.detail?.code }

    /// The request id of the gateway's answer, when there was one.
    public var requestID: String? {
        if case .unexpectedResponse(_, let requestID) = self { return requestID }
        return self.detail?.requestID
    }
}

extension LatchkeyError {
    /// The error for a response with a status of 400 or more: the catalogue's code from the
    /// body `{"error":{"code","message","request_id"}}`, in one place.
    init(response: HTTPResponse) {
        let headerRequestID = response.header("X-Request-ID")
        let retryAfter = Self.retryAfter(response.header("Retry-After"))
        guard let body = try? JSONDecoder().decode(ErrorBody.self, from: response.body) else {
            // A proxy's or load balancer's 429 or 503 (a text page, no body): still a back-off.
            switch response.status {
            case 429:
                self = .rateLimited(
                    ErrorDetail(status: 429, code: "rate_limited", message: "Too many requests", requestID: headerRequestID, retryAfter: retryAfter),
                    retryAfter: retryAfter)
            case 503:
                self = .serviceUnavailable(
                    ErrorDetail(
                        status: 503, code: "service_unavailable", message: "Service unavailable", requestID: headerRequestID,
                        retryAfter: retryAfter))
            default:
                self = .unexpectedResponse(status: response.status, requestID: headerRequestID)
            }
            return
        }
        let detail = ErrorDetail(
            status: response.status, code: body.error.code, message: body.error.message,
            requestID: body.error.requestID ?? headerRequestID, retryAfter: retryAfter)
        switch body.error.code {
        case "bad_request": self = .badRequest(detail)
        case "unauthorized": self = .unauthorized(detail)
        case "token_expired": self = .tokenExpired(detail)
        case "session_revoked": self = .sessionRevoked(detail)
        case "invalid_identity_token": self = .invalidIdentityToken(detail)
        case "invalid_refresh_token": self = .invalidRefreshToken(detail)
        case "refresh_token_reused": self = .refreshTokenReused(detail)
        case "forbidden": self = .forbidden(detail)
        case "user_inactive": self = .userInactive(detail)
        case "not_found": self = .notFound(detail)
        case "identity_already_linked": self = .identityAlreadyLinked(detail)
        case "last_identity": self = .lastIdentity(detail)
        case "conflict": self = .conflict(detail)
        case "payload_too_large": self = .payloadTooLarge(detail)
        case "unsupported_media_type": self = .unsupportedMediaType(detail)
        case "rate_limited": self = .rateLimited(detail, retryAfter: retryAfter)
        case "service_unavailable": self = .serviceUnavailable(detail)
        case "internal": self = .internal(detail)
        default: self = .other(detail)
        }
    }

    /// True when no answer arrived or the answer says to come back later (429, 502, 503,
    /// 504): a request that may be sent again, if it is idempotent.
    var isTransient: Bool {
        switch self {
        case .transport, .rateLimited, .serviceUnavailable: true
        case .unexpectedResponse(let status, _): [429, 502, 503, 504].contains(status)
        default: false
        }
    }

    /// `Retry-After` as seconds from now: either delay-seconds or an HTTP date (RFC 9110).
    static func retryAfter(_ value: String?, now: Date = Date()) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        guard let date = formatter.date(from: value) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private struct ErrorBody: Decodable {
        struct Detail: Decodable {
            var code: String
            var message: String
            var requestID: String?

            enum CodingKeys: String, CodingKey {
                case code, message
                case requestID = "request_id"
            }
        }

        var error: Detail
    }
}
