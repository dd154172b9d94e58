import FoundationEssentials
import Hummingbird
import Logging
import TextCoding

/// Requires `Authorization: Bearer <access token>`, or `Authorization: DPoP <access token>` and
/// a `DPoP` proof for a token bound to a device's key (DESIGN.md section 9.2; a bound token sent
/// as `Bearer` is refused): verifies it locally, then checks the revocation copy in Redis, and
/// puts the caller in the context. A token revoked because its
/// user was deactivated gets 403 `user_inactive`, any other revoked one 401 `session_revoked`
/// (sign in again), an expired one 401 `token_expired` (refresh), anything else 401
/// `unauthorized`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let verifier: AccessTokenVerifier
    let revocations: RevocationChecker
    let dpop: DPoPVerifier
    /// The routes a token revoked for account deletion may still call: the deletion itself, so
    /// that a retry after a partial failure completes it.
    let deletionRetryPath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let (verified, verdict) = try await self.authenticate(request, context: context)
        switch verdict {
        case .live:
            break
        case .revoked(reason: "deactivated"):
            throw APIError(.forbidden, .userInactive, "This account is deactivated")
        case .revoked(reason: "deleted") where request.method == .delete && request.uri.path == self.deletionRetryPath:
            break
        case .revoked:
            throw APIError.sessionRevoked
        }
        var context = context
        context.caller = verified.caller
        context.logger[metadataKey: "user.id"] = "\(verified.caller.userID.lowercasedText)"
        return try await next(request, context)
    }

    /// The request's access token, verified (401 `unauthorized`, `token_expired` when it is not
    /// good; `invalid_dpop_proof` when it is bound and its proof is not), and its revocation
    /// verdict: what every authenticated route and a guest's sign-in (which reads the token
    /// itself) decide on.
    func authenticate(_ request: Request, context: Context) async throws -> (VerifiedToken, RevocationChecker.Verdict) {
        guard let header = request.headers[.authorization], let (scheme, token) = Self.credentials(header) else {
            throw APIError.unauthorized
        }
        let verified = try await self.verifier.verify(token, logger: context.logger)
        if let key = verified.dpopJKT {
            guard scheme == .dpop else { throw DPoPVerifier.refusal(.missing, logger: context.logger) }
            try await self.dpop.verifyBound(request, context: context, accessToken: token, boundTo: key)
        } else if scheme == .dpop || self.dpop.required {
            // A proof names a key the token is not bound to; or bearer tokens are not accepted.
            throw DPoPVerifier.refusal(.wrongKey, logger: context.logger)
        }
        return (verified, try await self.revocations.check(verified, logger: context.logger))
    }

    /// How the access token is presented.
    enum Scheme {
        case bearer
        /// RFC 9449 section 7.1: a bound token, with a `DPoP` proof.
        case dpop
    }

    /// The scheme and token of `Bearer <token>` or `DPoP <token>` (scheme case-insensitive,
    /// spaces around the token ignored).
    static func credentials(_ header: String) -> (Scheme, String)? {
        if let token = Self.token(header, scheme: "bearer ") { return (.bearer, token) }
        if let token = Self.token(header, scheme: "dpop ") { return (.dpop, token) }
        return nil
    }

    /// The token of `Bearer <token>`.
    static func bearerToken(_ header: String) -> String? {
        Self.token(header, scheme: "bearer ")
    }

    private static func token(_ header: String, scheme: StaticString) -> String? {
        let bytes = Array(header.utf8)
        let scheme = UnsafeBufferPointer(start: scheme.utf8Start, count: scheme.utf8CodeUnitCount)
        guard bytes.count > scheme.count else { return nil }
        for index in 0..<scheme.count where bytes[index] | 0x20 != scheme[index] | 0x20 { return nil }
        var start = scheme.count
        var end = bytes.count
        while start < end, bytes[start] == UInt8(ascii: " ") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") { end -= 1 }
        guard start < end else { return nil }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
