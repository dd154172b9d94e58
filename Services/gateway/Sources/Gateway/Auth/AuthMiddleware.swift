import Foundation
import Hummingbird
import Logging

/// Requires `Authorization: Bearer <access token>`: verifies it locally, then checks the
/// revocation copy in Redis, and puts the caller in the context. A token revoked because its
/// user was deactivated gets 403 `user_inactive`; any other defect 401 `unauthorized`.
struct AuthMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let verifier: AccessTokenVerifier
    let revocations: RevocationChecker
    /// The routes a token revoked for account deletion may still call: the deletion itself, so
    /// that a retry after a partial failure completes it.
    let deletionRetryPath: String

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.utf8.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { throw APIError.unauthorized }
        let token = String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces)
        let verified = try await self.verifier.verify(token, logger: context.logger)
        switch try await self.revocations.check(verified, logger: context.logger) {
        case .live:
            break
        case .revoked(reason: "deactivated"):
            throw APIError(.forbidden, .userInactive, "This account is deactivated")
        case .revoked(reason: "deleted") where request.method == .delete && request.uri.path == self.deletionRetryPath:
            break
        case .revoked:
            throw APIError(.unauthorized, .unauthorized, "Session expired, please sign in again")
        }
        var context = context
        context.caller = verified.caller
        context.logger[metadataKey: "user.id"] = "\(verified.caller.userID.uuidString.lowercased())"
        return try await next(request, context)
    }
}
