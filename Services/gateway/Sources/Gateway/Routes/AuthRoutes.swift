import FoundationEssentials
import Hummingbird
import IdentityAPI
import ServiceProtocol
import TokensAPI

/// `/api/v1/auth/...`: sign-in, refresh, logout, the current user, sessions, linked
/// identities and account deletion (DESIGN.md section 6).
struct AuthRoutes: Sendable {
    let orchestration: Orchestration
    let backends: Backends
    let rateLimiter: RateLimiter
    /// Verifies the guest's bearer token a sign-in may carry, as every authenticated route does.
    let authentication: AuthMiddleware
    let limits: GatewayConfiguration.RateLimits
    let maxBodyBytes: Int

    /// Routes without a bearer token: sign-in, refresh and Apple's notifications (rate limited
    /// per client IP).
    func addPublic(to group: RouterGroup<GatewayRequestContext>) {
        group.post("auth/apple") { request, context in
            try await self.rateLimiter.check("signin", limit: self.limits.signInPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            return try await self.signIn(provider: .apple, body: body, request: request, context: context)
        }
        group.post("auth/google") { request, context in
            try await self.rateLimiter.check("signin", limit: self.limits.signInPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            return try await self.signIn(provider: .google, body: body, request: request, context: context)
        }
        group.post("auth/guest") { request, context in
            try await self.rateLimiter.check("signin", limit: self.limits.signInPerMinute, request: request, context: context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes, optional: true)
            let deviceName = try Self.deviceName(body)
            var context = context
            context.deviceKey = try await self.authentication.dpop.sessionKey(request, context: context)
            return try await self.orchestration.createGuest(deviceName: deviceName, context: context).response()
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
            guard case .string(let token)? = body["refresh_token"], !token.isEmpty else {
                throw APIError.badRequest("refresh_token is required")
            }
            var context = context
            context.deviceKey = try await self.authentication.dpop.sessionKey(request, context: context)
            return try await self.orchestration.refresh(refreshToken: token, context: context).response()
        }
    }

    /// Routes behind `AuthMiddleware`.
    func addAuthenticated(to group: RouterGroup<GatewayRequestContext>) {
        group.post("auth/logout") { request, context in
            let caller = try context.requireCaller()
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes, optional: true)
            let user = caller.userID
            switch body["scope"] ?? .string("local") {
            case .string("local"):
                try await self.orchestration.revoke(
                    Tokens.revoke, RevokeParams(userID: user, sessionID: caller.sessionID), user: user, context: context)
            case .string("others"):
                try await self.orchestration.revoke(
                    Tokens.revokeAll, RevokeAllParams(userID: user, exceptSessionID: caller.sessionID), user: user, context: context)
            case .string("global"):
                try await self.orchestration.revoke(Tokens.revokeAll, RevokeAllParams(userID: user), user: user, context: context)
                try await self.orchestration.announceSessionsRevoked(user, reason: "logout", context: context)
            default:
                throw APIError.badRequest("scope must be local, others or global")
            }
            return Response(status: .noContent)
        }
        group.get("auth/me") { _, context in
            let caller = try context.requireCaller()
            return jsonResponse(PublicUser(user: try await self.orchestration.user(caller.userID, context: context)).rawJSON.bytes)
        }
        group.delete("auth/account") { _, context in
            let caller = try context.requireCaller()
            try await self.orchestration.deleteUser(caller.userID, by: .user, context: context)
            return Response(status: .noContent)
        }
        group.get("auth/activity") { request, context in
            // The caller's own trail: sign-ins with device and time, logouts, revocations.
            let caller = try context.requireCaller()
            let params = try AuditReader.params(request, userID: caller.userID)
            return try jsonResponse(try await AuditReader(backends: self.backends).page(params, context: context))
        }
        group.get("auth/sessions") { _, context in
            let caller = try context.requireCaller()
            let list = try await self.backends.tokens.call(
                Tokens.listSessions, ListSessionsParams(userID: caller.userID), options: Backends.options(context, idempotent: true))
            return try jsonResponse(PublicSessions(list, current: caller.sessionID))
        }
        group.delete("auth/sessions/:id") { _, context in
            let caller = try context.requireCaller()
            guard let sessionID = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound }
            do {
                try await self.orchestration.revoke(
                    Tokens.revoke, RevokeParams(userID: caller.userID, sessionID: sessionID, cause: .user), user: caller.userID,
                    context: context)
            } catch let error as RPCError where error.code == .notFound {
                throw APIError(.notFound, .notFound, "No such session")
            }
            return Response(status: .noContent)
        }
        group.post("auth/identities/:provider") { request, context in
            let caller = try context.requireCaller()
            let provider = try Self.provider(context)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            let params = LinkParams(userID: caller.userID, credential: try Self.credential(provider: provider, body: body))
            let user = try await self.orchestration.changingUser(caller.userID) {
                try await self.backends.identity.call(
                    Identity.link, params, options: Backends.options(context, idempotent: true, audited: true))
            }
            return jsonResponse(PublicUser(user: user).rawJSON.bytes)
        }
        group.delete("auth/identities/:provider") { _, context in
            let caller = try context.requireCaller()
            let params = UnlinkParams(userID: caller.userID, provider: try Self.provider(context))
            let user = try await self.orchestration.changingUser(caller.userID) {
                try await self.backends.identity.call(
                    Identity.unlink, params, options: Backends.options(context, idempotent: false, audited: true))
            }
            return jsonResponse(PublicUser(user: user).rawJSON.bytes)
        }
    }

    /// The longest `device_name` (Unicode scalars, as openapi.yaml's `maxLength` counts).
    static let maximumDeviceNameLength = 100

    /// The optional `device_name` of a sign-in or guest body: a string of at most
    /// `maximumDeviceNameLength` characters, else 400 `bad_request`.
    static func deviceName(_ body: JSONObject) throws -> String? {
        guard let name = try body.string("device_name") else { return nil }
        guard name.unicodeScalars.count <= Self.maximumDeviceNameLength else {
            throw APIError.badRequest("device_name is at most \(Self.maximumDeviceNameLength) characters")
        }
        return name
    }

    /// A sign-in; with `Authorization: Bearer`, a guest's upgrade or merge (DESIGN.md section
    /// 9.1), the bearer verified as on every authenticated route and never ignored. With a DPoP
    /// proof the new session is bound to its key (a bound guest's proof serves both).
    private func signIn(
        provider: IdentityProvider, body: JSONObject, request: Request, context: GatewayRequestContext
    ) async throws -> Response {
        let credential = try Self.credential(provider: provider, body: body)
        let deviceName = try Self.deviceName(body)
        var context = context
        guard request.headers[.authorization] != nil else {
            context.deviceKey = try await self.authentication.dpop.sessionKey(request, context: context)
            return try await self.orchestration.signIn(credential: credential, deviceName: deviceName, context: context).response()
        }
        let (guest, verdict) = try await self.authentication.authenticate(request, context: context)
        if let key = guest.dpopJKT {
            context.deviceKey = key
        } else {
            context.deviceKey = try await self.authentication.dpop.sessionKey(request, context: context)
        }
        let flow = GuestSignInFlow(orchestration: self.orchestration, backends: self.backends)
        return try await flow.signIn(credential: credential, deviceName: deviceName, guest: guest.caller, verdict: verdict, context: context)
            .response()
    }

    /// The provider credential identity expects, from a sign-in or link body, read by
    /// `ProviderCredential`'s own rules (e.g. `full_name` as a string or Apple's components).
    static func credential(provider: IdentityProvider, body: JSONObject) throws -> ProviderCredential {
        switch provider {
        case .apple:
            guard body["identity_token"]?.stringValue?.isEmpty == false else {
                throw APIError.badRequest("identity_token is required")
            }
        case .google:
            guard body["id_token"]?.stringValue?.isEmpty == false || body["access_token"]?.stringValue?.isEmpty == false else {
                throw APIError.badRequest("id_token or access_token is required")
            }
        }
        return try Self.textCredential(provider: provider, body: body) ?? Self.decodedCredential(provider: provider, body: body)
    }

    /// The credential of a body whose members are all strings (the usual one), taken as they
    /// are; nil when any is something else. The same value `decodedCredential` reads.
    static func textCredential(provider: IdentityProvider, body: JSONObject) -> ProviderCredential? {
        guard Self.members(of: provider).allSatisfy({ body[$0] == nil || body[$0]?.stringValue != nil }) else { return nil }
        let text = { (member: String) in body[member]?.stringValue }
        switch provider {
        case .apple:
            return ProviderCredential(
                provider: .apple, identityToken: text("identity_token"), nonce: text("nonce"), fullName: text("full_name"),
                email: text("email"), authorizationCode: text("authorization_code"))
        case .google:
            return ProviderCredential(
                provider: .google, identityToken: text("id_token"), accessToken: text("access_token"), nonce: text("nonce"),
                email: text("email"))
        }
    }

    /// The credential as `ProviderCredential` decodes the provider's members of the body; a
    /// member it cannot read is `bad_request` naming it.
    static func decodedCredential(provider: IdentityProvider, body: JSONObject) throws -> ProviderCredential {
        var credential: JSONObject = ["provider": .string(provider.rawValue)]
        credential.copy(Self.members(of: provider), from: body)
        return try credential.decode(as: ProviderCredential.self)
    }

    /// The body members a provider's credential is made of.
    private static func members(of provider: IdentityProvider) -> [String] {
        switch provider {
        case .apple: ["identity_token", "authorization_code", "nonce", "full_name", "email"]
        case .google: ["id_token", "access_token", "nonce", "email"]
        }
    }

    /// `apple` or `google` from the path; anything else is not a route.
    static func provider(_ context: GatewayRequestContext) throws -> IdentityProvider {
        guard let provider = context.parameters.get("provider").flatMap(IdentityProvider.init(rawValue:)) else {
            throw APIError.notFound
        }
        return provider
    }
}
