import Foundation
import Hummingbird
import ServiceProtocol

/// `/api/v1/auth/...`: sign-in, refresh, logout, the current user, sessions, linked
/// identities and account deletion (DESIGN.md section 6).
struct AuthRoutes: Sendable {
    let orchestration: Orchestration
    let backends: Backends
    let rateLimiter: RateLimiter
    let limits: GatewayConfiguration.RateLimits
    let maxBodyBytes: Int

    /// Routes without a bearer token: sign-in, refresh and Apple's notifications (rate limited
    /// per client IP).
    func addPublic(to group: RouterGroup<GatewayRequestContext>) {
        group.post("auth/apple") { request, context in
            try await self.rateLimiter.check("signin", limit: self.limits.signInPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            return try await self.signIn(provider: "apple", body: body, context: context)
        }
        group.post("auth/google") { request, context in
            try await self.rateLimiter.check("signin", limit: self.limits.signInPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            return try await self.signIn(provider: "google", body: body, context: context)
        }
        group.post("auth/apple/notifications") { request, context in
            try await self.rateLimiter.check(
                "apple_notifications", limit: self.limits.signInPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            guard let payload = body["payload"]?.stringValue, !payload.isEmpty else {
                throw APIError.badRequest("payload is required: the JWS Apple signed")
            }
            try await AppleNotificationFlow(orchestration: self.orchestration).receive(payload: payload, context: context)
            return Response(status: .ok)
        }
        group.post("auth/refresh") { request, context in
            try await self.rateLimiter.check("refresh", limit: self.limits.refreshPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            guard let token = body["refresh_token"], case .string(let text) = token, !text.isEmpty else {
                throw APIError.badRequest("refresh_token is required")
            }
            return try await self.orchestration.refresh(refreshToken: token, context: context).response()
        }
    }

    /// Routes behind `AuthMiddleware`.
    func addAuthenticated(to group: RouterGroup<GatewayRequestContext>) {
        group.post("auth/logout") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes, optional: true)
            let scope = body["scope"] ?? .string("local")
            let userID = JSONValue.string(caller.userID.uuidString.lowercased())
            let sessionID = JSONValue.string(caller.sessionID.uuidString.lowercased())
            let user = caller.userID
            switch scope {
            case .string("local"):
                try await self.orchestration.revoke("tokens.revoke", ["user_id": userID, "session_id": sessionID], user: user, context: context)
            case .string("others"):
                try await self.orchestration.revoke(
                    "tokens.revokeAll", ["user_id": userID, "except_session_id": sessionID], user: user, context: context)
            case .string("global"):
                try await self.orchestration.revoke("tokens.revokeAll", ["user_id": userID], user: user, context: context)
            default:
                throw APIError.badRequest("scope must be local, others or global")
            }
            return Response(status: .noContent)
        }
        group.get("auth/me") { _, context in
            let caller = try context.requireCaller()
            return try jsonResponse(try await self.orchestration.user(caller.userID.uuidString.lowercased(), context: context))
        }
        group.delete("auth/account") { _, context in
            let caller = try context.requireCaller()
            try await self.orchestration.deleteUser(caller.userID, context: context)
            return Response(status: .noContent)
        }
        group.get("auth/sessions") { _, context in
            let caller = try context.requireCaller()
            var list = try await self.backends.tokens.call(
                "tokens.listSessions", ["user_id": .string(caller.userID.uuidString.lowercased())] as JSONObject,
                as: SessionList.self, options: Backends.options(context, idempotent: true))
            let current = caller.sessionID.uuidString.lowercased()
            for index in list.sessions.indices {
                list.sessions[index].current = list.sessions[index].id.lowercased() == current
            }
            return try jsonResponse(list)
        }
        group.delete("auth/sessions/:id") { _, context in
            let caller = try context.requireCaller()
            guard let sessionID = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound }
            do {
                try await self.orchestration.revoke(
                    "tokens.revoke",
                    [
                        "user_id": .string(caller.userID.uuidString.lowercased()),
                        "session_id": .string(sessionID.uuidString.lowercased()),
                    ], user: caller.userID, context: context)
            } catch let error as RPCError where error.code == .notFound {
                throw APIError(.notFound, .notFound, "No such session")
            }
            return Response(status: .noContent)
        }
        group.post("auth/identities/:provider") { request, context in
            let caller = try context.requireCaller()
            let provider = try Self.provider(context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            var params = try Self.credential(provider: provider, body: body)
            params["user_id"] = .string(caller.userID.uuidString.lowercased())
            let user = try await self.backends.identity.call(
                "identity.link", params, as: PublicUser.self, options: Backends.options(context, idempotent: true))
            return try jsonResponse(user)
        }
        group.delete("auth/identities/:provider") { _, context in
            let caller = try context.requireCaller()
            let provider = try Self.provider(context)
            let user = try await self.backends.identity.call(
                "identity.unlink",
                ["user_id": .string(caller.userID.uuidString.lowercased()), "provider": .string(provider)] as JSONObject,
                as: PublicUser.self, options: Backends.options(context, idempotent: false))
            return try jsonResponse(user)
        }
    }

    private func signIn(provider: String, body: JSONObject, context: GatewayRequestContext) async throws -> Response {
        let credential = try Self.credential(provider: provider, body: body)
        return try await self.orchestration.signIn(credential: credential, deviceName: body["device_name"], context: context).response()
    }

    /// The provider credential identity expects, from a sign-in or link body.
    static func credential(provider: String, body: JSONObject) throws -> JSONObject {
        var credential: JSONObject = ["provider": .string(provider)]
        switch provider {
        case "apple":
            guard body["identity_token"]?.stringValue?.isEmpty == false else {
                throw APIError.badRequest("identity_token is required")
            }
            credential.copy(["identity_token", "authorization_code", "nonce", "full_name", "email"], from: body)
        default:
            guard body["id_token"]?.stringValue?.isEmpty == false || body["access_token"]?.stringValue?.isEmpty == false else {
                throw APIError.badRequest("id_token or access_token is required")
            }
            credential.copy(["id_token", "access_token", "nonce", "email"], from: body)
        }
        return credential
    }

    /// `apple` or `google` from the path; anything else is not a route.
    static func provider(_ context: GatewayRequestContext) throws -> String {
        guard let provider = context.parameters.get("provider"), provider == "apple" || provider == "google" else {
            throw APIError.notFound
        }
        return provider
    }
}
