import AccountAdministration
import AuditAPI
import Crypto
import FoundationEssentials
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import IdentityAPI
import NIOCore
import NIOPosix
import Redis
import ServiceProtocol
import TextCoding

/// The admin surface: a password login that opens a cookie session (stored in Redis only as
/// a SHA-256 hash, with a TTL), and the user administration API behind it.
struct AdminRoutes: Sendable {
    let configuration: AdminConfiguration
    let redis: RedisClient
    let administration: AccountAdministration
    let orchestration: Orchestration
    let rateLimiter: RateLimiter
    let loginLimitPerMinute: Int
    let loginBudget: AdminLoginBudget
    let maxBodyBytes: Int

    static let cookieName = "admin_session"

    func add(to router: Router<GatewayRequestContext>) {
        // Every state-changing call, login and logout included, from this site only.
        let admin = router.group("admin").add(middleware: SameOriginMiddleware())
        admin.post("login") { request, context in
            // Fails closed: without Redis there is no limit, so no login.
            try await self.rateLimiter.check(
                "admin_login", limit: self.loginLimitPerMinute, request: request, context: context, failClosed: true)
            let body = try await JSONBody.object(request, limit: self.maxBodyBytes)
            guard let password = body["password"]?.stringValue, !password.isEmpty, password.utf8.count <= 1024 else {
                throw APIError.badRequest("password is required")
            }
            // The attempt is counted before the password is checked, and given back when right.
            try await self.loginBudget.reserve()
            guard try await Self.passwordMatches(password, self.configuration.credential) else {
                context.logger.warning("Admin login refused")
                try await self.record(.adminLoginFailed, context: context)
                throw APIError(.unauthorized, .unauthorized, "Wrong password")
            }
            await self.loginBudget.refund()
            try await self.record(.adminLogin, context: context)
            let token = Self.newSessionToken()
            // The session holds the credential's fingerprint: a new admin password ends it.
            try await self.store {
                try await self.redis.command([
                    "SET", Self.key(token), self.configuration.credentialFingerprint, "EX", "\(self.configuration.sessionTTL)",
                ])
            }
            context.logger.info("Admin signed in")
            var response = Response(status: .noContent)
            response.headers[.setCookie] = self.cookie(value: token, maxAge: self.configuration.sessionTTL)
            return response
        }
        admin.post("logout") { request, _ in
            if let token = Self.sessionToken(request) {
                try await self.store { try await self.redis.command(["DEL", Self.key(token)]) }
            }
            var response = Response(status: .noContent)
            response.headers[.setCookie] = self.cookie(value: "", maxAge: 0)
            return response
        }

        let api = admin.group("api")
            .add(middleware: AdminSessionMiddleware(redis: self.redis, credentialFingerprint: self.configuration.credentialFingerprint))
        api.get("users") { request, context in
            let params = ListUsersParams(
                query: request.uri.queryParameters["query"].map(String.init), limit: try ContentRoutes.limit(request),
                cursor: request.uri.queryParameters["cursor"].map(String.init), guest: try Self.guestFilter(request))
            // Users as identity describes them, `is_active` included.
            return try jsonResponse(try await self.administration.listUsers(params, requestID: context.requestID))
        }
        api.get("users/:id") { _, context in
            // With every linked identity, the open sessions and the content counts.
            try jsonResponse(try await AdminUserOverview.load(try Self.userID(context), from: self.administration, requestID: context.requestID))
        }
        api.post("users/:id/deactivate") { _, context in
            try jsonResponse(try await self.orchestration.deactivate(try Self.userID(context), context: context))
        }
        api.post("users/:id/activate") { _, context in
            try jsonResponse(try await self.orchestration.activate(try Self.userID(context), context: context))
        }
        api.post("users/:id/revoke-sessions") { _, context in
            try jsonResponse(try await self.orchestration.revokeSessions(try Self.userID(context), context: context))
        }
        api.get("audit") { request, context in
            var userID: UUID?
            if let text = request.uri.queryParameters["user_id"] {
                guard let id = UUID(uuidString: String(text)) else { throw APIError.badRequest("user_id is not a user id") }
                userID = id
            }
            let type = request.uri.queryParameters["type"].map(String.init)
            let params = try AuditReader.params(request, userID: userID, type: type)
            return try jsonResponse(try await AuditReader(backends: self.orchestration.backends).page(params, context: context))
        }
        api.delete("users/:id") { _, context in
            try await self.orchestration.deleteUser(try Self.userID(context), by: .admin, context: context)
            return Response(status: .noContent)
        }
    }

    /// Records an admin login or failed login in identity's audit trail (the gateway keeps no
    /// store): named by a fresh id, so a retry of the call records it once.
    private func record(_ type: AuditEventType, context: GatewayRequestContext) async throws {
        let params = AuditRecordParams(id: .random(), type: type.rawValue)
        _ = try await self.administration.identity.call(
            Identity.auditRecord, params, options: RPCClient.CallOptions(idempotent: true, requestID: context.requestID, origin: context.origin))
    }

    /// bcrypt is slow by design: checked on the blocking pool, never on an event loop.
    static func passwordMatches(_ password: String, _ credential: AdminConfiguration.Credential) async throws -> Bool {
        switch credential {
        case .bcryptHash(let hash):
            return try await NIOThreadPool.singleton.runIfActive { Bcrypt.verify(password, hash: hash) }
        case .plainPassword(let expected):
            // Equal-length digests compared in constant time.
            let a = SHA256.hash(data: Data(password.utf8))
            let b = SHA256.hash(data: Data(expected.utf8))
            return a == b
        case .none:
            throw APIError(.forbidden, .forbidden, "The admin surface is not configured (set ADMIN_PASSWORD_HASH)")
        }
    }

    private func store(_ body: () async throws -> RedisValue) async throws {
        do {
            _ = try await body()
        } catch {
            throw APIError.serviceUnavailable
        }
    }

    private func cookie(value: String, maxAge: Int) -> String {
        var cookie = "\(Self.cookieName)=\(value); Path=/admin; Max-Age=\(maxAge); HttpOnly; SameSite=Strict"
        if self.configuration.secureCookie { cookie += "; Secure" }
        return cookie
    }

    static func newSessionToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// The Redis key of a session: only the hash of the cookie value is stored.
    static func key(_ token: String) -> String {
        "latchkey:admin:session:" + HexDigit.lowercase(SHA256.hash(data: Data(token.utf8)))
    }

    static func sessionToken(_ request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0].trimmingWhitespace() == Self.cookieName {
                    let value = parts[1].trimmingWhitespace()
                    return value.isEmpty || value.utf8.count > 128 ? nil : value
                }
            }
        }
        return nil
    }

    static func userID(_ context: GatewayRequestContext) throws -> UUID {
        guard let id = context.parameters.get("id").flatMap(UUID.init(uuidString:)) else { throw APIError.notFound }
        return id
    }

    /// `guest=true|false` of the user list: only guests, or only the others; absent: everyone.
    static func guestFilter(_ request: Request) throws -> Bool? {
        switch request.uri.queryParameters["guest"].map(String.init) {
        case nil: nil
        case "true": true
        case "false": false
        default: throw APIError.badRequest("guest must be true or false")
        }
    }
}

/// Requires a live admin session cookie opened under the admin password configured now, and
/// marks every answer of the admin API, errors included, `Cache-Control: no-store` (user data
/// must not stay in a browser's or a proxy's cache) and `X-Content-Type-Options: nosniff`.
struct AdminSessionMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let redis: RedisClient
    /// `AdminConfiguration.credentialFingerprint`, which a session's value must be.
    let credentialFingerprint: String

    static let privateHeaders: HTTPFields = [.cacheControl: "no-store", .xContentTypeOptions: "nosniff"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            var response = try await self.authorized(request, context: context, next: next)
            for field in Self.privateHeaders { response.headers[field.name] = field.value }
            return response
        } catch var error as APIError {
            for field in Self.privateHeaders { error.headers[field.name] = field.value }
            throw error
        }
    }

    private func authorized(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let token = AdminRoutes.sessionToken(request) else {
            throw APIError(.unauthorized, .unauthorized, "Admin sign-in required")
        }
        let stored: String?
        do {
            stored = try await self.redis.command(["GET", AdminRoutes.key(token)]).stringValue
        } catch {
            throw APIError.serviceUnavailable
        }
        // A session opened under another password (or before sessions held one) is over.
        guard let stored, constantTimeEquals(stored, self.credentialFingerprint) else {
            throw APIError(.unauthorized, .unauthorized, "Admin sign-in required")
        }
        var context = context
        context.logger[metadataKey: "admin"] = "true"
        return try await next(request, context)
    }
}
