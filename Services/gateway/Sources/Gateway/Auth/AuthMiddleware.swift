import Foundation
import Hummingbird
import Logging
import TextCoding

/// Requires `Authorization: Bearer <access token>`: verifies it locally, then checks the
/// revocation copy in Redis, and puts the caller in the context. A token revoked because its
/// user was deactivated gets 403 `user_inactive`, any other revoked one 401 `session_revoked`
/// (sign in again), an expired one 401 `token_expired` (refresh), anything else 401
/// `unauthorized`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let verifier: AccessTokenVerifier
    let revocations: RevocationChecker
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

    /// The request's bearer token, verified (401 `unauthorized`, `token_expired` when it is not
    /// good), and its revocation verdict: what every authenticated route and a guest's sign-in
    /// (which reads the bearer itself) decide on.
    func authenticate(_ request: Request, context: Context) async throws -> (VerifiedToken, RevocationChecker.Verdict) {
        guard let header = request.headers[.authorization], let token = Self.bearerToken(header) else {
            throw APIError.unauthorized
        }
        let verified = try await self.verifier.verify(token, logger: context.logger)
        return (verified, try await self.revocations.check(verified, logger: context.logger))
    }

    /// The token of `Bearer <token>` (scheme case-insensitive, spaces around the token ignored).
    static func bearerToken(_ header: String) -> String? {
        let bytes = Array(header.utf8)
        let scheme: [UInt8] = Array("bearer ".utf8)
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
