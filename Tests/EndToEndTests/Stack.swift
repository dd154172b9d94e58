import AsyncHTTPClient
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import TestSupport
import TextCoding
import Testing

/// The whole product as a client meets it: the mock identity provider, identity, tokens,
/// content-state and the gateway, each its real executable on its own loopback ports, on the
/// test run's Postgres and Redis. `with` starts it, runs the body and stops every process.
final class Stack: Sendable {
    static let appleAudience = "com.example.e2e"
    static let googleAudience = "e2e-client.apps.googleusercontent.com"
    static let adminPassword = "correct horse battery staple"

    let gatewayURL: String
    var gatewayPort: Int { URL(string: self.gatewayURL)?.port ?? 0 }
    let mockURL: String
    let redisURL: String
    let processes: [String: ServiceProcess]
    let tokensPorts: [Int]
    /// The operations port (`/readyz`, `/metrics`) of the gateway and each backend but tokens, by process name.
    let opsPorts: [String: Int]
    /// The signing key folder every tokens replica shares.
    let keysFolder: URL
    /// What an operator's tool sets to reach the backends: `SERVICE_TOKEN` and the
    /// `*_ENDPOINTS` the gateway uses.
    let operatorEnvironment: [String: String]
    /// The first gateway's environment, for `withAnotherGateway`.
    let gatewayEnvironment: [String: String]
    /// The client address this stack's requests claim (`X-Forwarded-For`).
    let clientAddress = "10.\(UInt8.random(in: 0...255)).\(UInt8.random(in: 0...255)).\(UInt8.random(in: 1...254))"

    private init(
        gatewayURL: String, mockURL: String, redisURL: String, processes: [String: ServiceProcess], tokensPorts: [Int],
        opsPorts: [String: Int], keysFolder: URL, operatorEnvironment: [String: String], gatewayEnvironment: [String: String]
    ) {
        self.gatewayEnvironment = gatewayEnvironment
        self.opsPorts = opsPorts
        self.operatorEnvironment = operatorEnvironment
        self.keysFolder = keysFolder
        self.gatewayURL = gatewayURL
        self.mockURL = mockURL
        self.redisURL = redisURL
        self.processes = processes
        self.tokensPorts = tokensPorts
    }

    /// Starts the stack (`tokensReplicas` tokens processes), runs `body`, stops everything.
    /// `redisURL` replaces the test run's Redis (a private server a test restarts, say).
    /// `gatewayTokensReplicas` limits the replicas the gateway calls (all by default).
    /// `environment` goes to every service process (over the defaults: another `DATABASE_URL`,
    /// TLS files).
    static func with<T>(
        tokensReplicas: Int = 1, gatewayTokensReplicas: Range<Int>? = nil, gatewayEnvironment: [String: String] = [:],
        tokensEnvironment: [String: String] = [:], redisURL: String? = nil, environment: [String: String] = [:],
        _ body: (Stack) async throws -> T
    ) async throws -> T {
        let stack = try await Self.startRetryingTakenPorts {
            try await Self.start(
                tokensReplicas: tokensReplicas, gatewayTokensReplicas: gatewayTokensReplicas, gatewayEnvironment: gatewayEnvironment,
                tokensEnvironment: tokensEnvironment, redisURL: redisURL, environment: environment)
        }
        do {
            let result = try await body(stack)
            await stack.stop()
            return result
        } catch {
            await stack.stop()
            throw error
        }
    }

    /// A port `freePort` chose can be taken by another process before ours binds it (other test
    /// runs on the machine pick from the same range): such a start is retried on new ports.
    private static func startRetryingTakenPorts(_ start: () async throws -> Stack) async throws -> Stack {
        for attempt in 1... {
            do {
                return try await start()
            } catch let error as StackError where attempt < 3 && error.description.contains("Address already in use") {
                continue
            }
        }
        fatalError("unreachable")
    }

    private static func start(
        tokensReplicas: Int, gatewayTokensReplicas: Range<Int>?, gatewayEnvironment: [String: String],
        tokensEnvironment: [String: String], redisURL: String?, environment: [String: String]
    ) async throws -> Stack {
        let databaseURL = try requiredEnvironment("DATABASE_URL")
        let redisURL = try redisURL ?? requiredEnvironment("REDIS_URL")
        let serviceToken = "e2e-service-token-\(UUID().uuidString)"
        var processes: [String: ServiceProcess] = [:]
        var opsPorts: [String: Int] = [:]
        do {
            let mockPort = try freePort()
            processes["mock-idp"] = try ServiceProcess(
                "mock-idp", environment: ["MOCK_IDP_HOST": "127.0.0.1", "MOCK_IDP_PORT": "\(mockPort)"])
            let mockURL = "http://127.0.0.1:\(mockPort)"
            try await Self.waitForHTTP(mockURL + "/apple/auth/keys")

            let common = [
                "ENVIRONMENT": "development", "SERVICE_TOKEN": serviceToken, "RPC_HOST": "127.0.0.1",
                "LOG_LEVEL": "debug", "DATABASE_URL": databaseURL, "REDIS_URL": redisURL,
            ].merging(environment) { _, new in new }
            func backend(_ name: String, _ extra: [String: String]) throws -> Int {
                let port = try freePort()
                var environment = common.merging(extra) { _, new in new }
                environment["RPC_PORT"] = "\(port)"
                let opsPort = try freePort()
                environment["OPS_PORT"] = "\(opsPort)"
                opsPorts[name] = opsPort
                processes[name] = try ServiceProcess(name, environment: environment)
                return port
            }
            let identityPort = try backend(
                "identity",
                [
                    "APPLE_AUDIENCES": appleAudience, "GOOGLE_AUDIENCES": googleAudience, "PROVIDER_HTTP_TIMEOUT": "60",
                    "APPLE_JWKS_URL": mockURL + "/apple/auth/keys", "GOOGLE_JWKS_URL": mockURL + "/google/oauth2/v3/certs",
                    "GOOGLE_TOKENINFO_URL": mockURL + "/google/tokeninfo", "GOOGLE_USERINFO_URL": mockURL + "/google/userinfo",
                ])
            let keysFolder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-e2e-keys-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: keysFolder, withIntermediateDirectories: true)
            // One key written before the replicas start, so that they all share it.
            try await Self.keygen(into: keysFolder)
            var tokensPorts: [Int] = []
            for replica in 0..<tokensReplicas {
                let port = try freePort()
                var environment = common
                environment["RPC_PORT"] = "\(port)"
                environment["OPS_PORT"] = "\(try freePort())"
                environment["SIGNING_KEYS_DIR"] = keysFolder.path
                environment.merge(tokensEnvironment) { _, new in new }
                processes["tokens-\(replica)"] = try ServiceProcess("tokens", environment: environment)
                tokensPorts.append(port)
            }
            let contentPort = try backend("content-state", [:])
            let httpPort = try freePort()
            var gateway = common
            gateway["HTTP_HOST"] = "127.0.0.1"
            gateway["HTTP_PORT"] = "\(httpPort)"
            let gatewayOpsPort = try freePort()
            gateway["OPS_PORT"] = "\(gatewayOpsPort)"
            opsPorts["gateway"] = gatewayOpsPort
            gateway["IDENTITY_ENDPOINTS"] = "127.0.0.1:\(identityPort)"
            gateway["TOKENS_ENDPOINTS"] = tokensPorts[gatewayTokensReplicas ?? tokensPorts.indices].map { "127.0.0.1:\($0)" }
                .joined(separator: ",")
            gateway["CONTENT_STATE_ENDPOINTS"] = "127.0.0.1:\(contentPort)"
            // As scripts/dev and the deployments run it: content reads and writes from its own pool.
            gateway["CONTENT_DATABASE_URL"] = common["DATABASE_URL"]
            gateway["ADMIN_PASSWORD"] = adminPassword
            // Rate limits count per client IP in the shared Redis: each stack's client sends
            // its own forwarded address through loopback, its trusted proxy, so stacks running
            // at once do not share counters.
            gateway["TRUSTED_PROXIES"] = "127.0.0.0/8"
            gateway["LOG_LEVEL"] = "info"
            gateway.merge(gatewayEnvironment) { _, new in new }
            processes["gateway"] = try ServiceProcess("gateway", environment: gateway)
            let stack = Stack(
                gatewayURL: "http://127.0.0.1:\(httpPort)", mockURL: mockURL, redisURL: redisURL, processes: processes,
                tokensPorts: tokensPorts, opsPorts: opsPorts, keysFolder: keysFolder,
                operatorEnvironment: gateway.filter { ["SERVICE_TOKEN", "IDENTITY_ENDPOINTS", "TOKENS_ENDPOINTS", "CONTENT_STATE_ENDPOINTS"].contains($0.key) },
                gatewayEnvironment: gateway)
            try await stack.waitUntilReady()
            return stack
        } catch {
            for process in processes.values { process.terminate() }
            throw error
        }
    }

    /// One more gateway in front of the same backends and Redis (the gateway scaled out), with
    /// `environment` over the first one's; `body` gets its base URL and operations port.
    func withAnotherGateway<T>(
        environment: [String: String] = [:], _ body: (_ url: String, _ opsPort: Int) async throws -> T
    ) async throws -> T {
        var gateway = self.gatewayEnvironment.merging(environment) { _, new in new }
        let (httpPort, opsPort) = (try freePort(), try freePort())
        gateway["HTTP_PORT"] = "\(httpPort)"
        gateway["OPS_PORT"] = "\(opsPort)"
        let process = try ServiceProcess("gateway", environment: gateway)
        // On a failure; the way out below waits for the exit.
        defer { if process.process.isRunning { process.terminate() } }
        try await waitUntil("the second gateway is ready", timeout: .seconds(120), interval: .milliseconds(100)) {
            guard process.process.isRunning else { throw StackError.failedToStart("gateway exited: \(process.stderr.suffix(2000))") }
            let probe = HTTPClientRequest(url: "http://127.0.0.1:\(opsPort)/readyz")
            return (try? await HTTPClient.shared.execute(probe, timeout: .seconds(5)))?.status.code == 200
        }
        let result = try await body("http://127.0.0.1:\(httpPort)", opsPort)
        process.terminate()
        if await process.waitForExit(timeout: .seconds(60)) == nil { kill(process.process.processIdentifier, SIGKILL) }
        return result
    }

    /// `tokens keygen`: a new signing key in the folder, which the replicas pick up and sign with.
    static func keygen(into folder: URL) async throws {
        let keygen = try ServiceProcess("tokens", arguments: ["keygen"], environment: ["SIGNING_KEYS_DIR": folder.path])
        guard await keygen.waitForExit(timeout: .seconds(30)) == 0 else {
            throw StackError.failedToStart("tokens keygen: \(keygen.stderr)")
        }
    }

    func stop() async {
        for process in self.processes.values { process.terminate() }
        for process in self.processes.values {
            if await process.waitForExit(timeout: .seconds(60)) == nil { kill(process.process.processIdentifier, SIGKILL) }
        }
    }

    /// Waits for `/readyz` to say every backend and Redis answer (at most 120 s: a loaded machine).
    private func waitUntilReady() async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            for (name, process) in self.processes where !process.process.isRunning {
                throw StackError.failedToStart("\(name) exited: \(process.stderr.suffix(2000)) \(process.stdout.suffix(2000))")
            }
            if let response = try? await self.ops("gateway", "/readyz"), response.status == 200 { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        let logs = self.processes.map { "\($0.key): \($0.value.stdout.suffix(1500))" }.joined(separator: "\n")
        throw StackError.failedToStart("not ready in 120 s\n\(logs)")
    }

    static func waitForHTTP(_ url: String) async throws {
        for _ in 0..<300 {
            if let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: url), timeout: .seconds(1)),
                response.status.code == 200
            {
                return
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw StackError.failedToStart("\(url) did not answer")
    }

    // MARK: - Calling the gateway

    struct Reply: Sendable {
        var status: Int
        var headers: [(String, String)]
        var body: ByteBuffer

        /// The body as a JSON object (empty when it is not one).
        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(buffer: self.body))) as? [String: Any] ?? [:]
        }

        var errorCode: String? {
            (self.json["error"] as? [String: Any])?["code"] as? String
        }

        func header(_ name: String) -> String? {
            self.headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }
    }

    /// One HTTP request to the gateway (or the one at `gateway`); `body` is a JSON object (or raw
    /// text when a String, raw bytes when `Data`), sent as `application/json` unless `headers`
    /// name a `Content-Type`.
    func request(
        _ method: String, _ path: String, body: Any? = nil, token: String? = nil, headers: [String: String] = [:],
        gateway: String? = nil
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: (gateway ?? self.gatewayURL) + path)
        request.method = .init(rawValue: method)
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        request.headers.add(name: "X-Forwarded-For", value: self.clientAddress)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            let data = try (body as? Data) ?? (body as? String).map { Data($0.utf8) } ?? JSONSerialization.data(withJSONObject: body)
            if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(data: data))
        }
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 16 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: bytes)
    }

    // MARK: - The mock identity provider

    /// A token minted by the mock: `provider` is `apple` or `google`; `claims` are MintRequest's
    /// members (`sub`, `aud`, `email`, `nonce`, `defect`, ...).
    func mint(_ provider: String, _ claims: [String: Any]) async throws -> String {
        try await self.mockToken("/mock/\(provider)/identity-token", member: "token", claims)
    }

    /// A Google OAuth access token minted by the mock, which its tokeninfo and userinfo know;
    /// `claims` are GoogleAccessTokenGrantRequest's members (`sub`, `aud`, `email`, ...).
    func googleAccessToken(subject: String, email: String? = nil) async throws -> String {
        var claims: [String: Any] = ["sub": subject, "aud": Self.googleAudience]
        if let email { claims["email"] = email }
        return try await self.mockToken("/mock/google/access-token", member: "access_token", claims)
    }

    /// Posts `claims` to one of the mock's minting routes and returns the token it answers in `member`.
    private func mockToken(_ path: String, member: String, _ claims: [String: Any]) async throws -> String {
        var request = HTTPClientRequest(url: self.mockURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: claims)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        let json = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any]
        guard let token = json?[member] as? String else { throw StackError.failedToStart("mock mint: \(String(buffer: bytes))") }
        return token
    }

    /// The body Apple would post to `/api/v1/auth/apple/notifications`, `{"payload":"<JWS>"}`,
    /// minted by the mock; `claims` are AppleNotificationMintRequest's members (`jti`, `defect`, ...).
    func appleNotification(subject: String, type: String, _ claims: [String: Any] = [:]) async throws -> [String: Any] {
        var request = HTTPClientRequest(url: self.mockURL + "/mock/apple/notification")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let body = claims.merging(["sub": subject, "type": type, "aud": Self.appleAudience]) { old, _ in old }
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        guard let json = try JSONSerialization.jsonObject(with: Data(buffer: bytes)) as? [String: Any], json["payload"] is String else {
            throw StackError.failedToStart("mock notification: \(String(buffer: bytes))")
        }
        return json
    }

    /// The Prometheus text of a process's `/metrics` (`gateway`, `identity`, `content-state`).
    func metrics(_ service: String) async throws -> String {
        String(buffer: try await self.ops(service, "/metrics").body)
    }

    /// A GET of `path` on a process's operations port.
    func ops(_ service: String, _ path: String) async throws -> Reply {
        let port = try #require(self.opsPorts[service])
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: .seconds(10))
        let bytes = try await response.body.collect(upTo: 4 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers.map { ($0.name, $0.value) }, body: bytes)
    }

    func appleToken(subject: String, email: String? = nil, nonce: String? = nil) async throws -> String {
        var claims: [String: Any] = ["sub": subject, "aud": Self.appleAudience]
        if let email { claims["email"] = email }
        if let nonce { claims["nonce"] = nonce }
        return try await self.mint("apple", claims)
    }

    func googleToken(subject: String, email: String? = nil) async throws -> String {
        var claims: [String: Any] = ["sub": subject, "aud": Self.googleAudience]
        if let email { claims["email"] = email }
        return try await self.mint("google", claims)
    }

    /// Signs in with a fresh Apple identity; returns the token response.
    func signInApple(subject: String = "apple-\(UUID().uuidString)", email: String? = nil, extra: [String: Any] = [:]) async throws -> Session {
        var body: [String: Any] = ["identity_token": try await self.appleToken(subject: subject, email: email)]
        body.merge(extra) { _, new in new }
        let reply = try await self.request("POST", "/api/v1/auth/apple", body: body)
        guard reply.status == 200 else { throw StackError.unexpected("sign-in: \(reply.status) \(String(buffer: reply.body))") }
        return try Session(reply.json)
    }
}

/// The `kid` of a signed token's header: which signing key made it.
func accessTokenKid(_ jwt: String) throws -> String {
    let header = Data(try #require(Base64URL.decode(String(jwt.split(separator: ".")[0]))))
    let json = try JSONSerialization.jsonObject(with: header) as? [String: Any]
    return try #require(json?["kid"] as? String)
}

/// What a sign-in or refresh returned.
struct Session: Sendable {
    var accessToken: String
    var refreshToken: String
    var userID: String
    var isNewUser: Bool?

    init(_ json: [String: Any]) throws {
        guard let access = json["access_token"] as? String, let refresh = json["refresh_token"] as? String,
            let user = json["user"] as? [String: Any], let id = user["id"] as? String
        else { throw StackError.unexpected("not a token response: \(json)") }
        self.accessToken = access
        self.refreshToken = refresh
        self.userID = id
        self.isNewUser = json["is_new_user"] as? Bool
    }
}

enum StackError: Error, CustomStringConvertible {
    case failedToStart(String)
    case unexpected(String)

    var description: String {
        switch self {
        case .failedToStart(let text): "stack failed to start: \(text)"
        case .unexpected(let text): "unexpected reply: \(text)"
        }
    }
}
