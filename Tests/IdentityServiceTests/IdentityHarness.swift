import Foundation
import IdentityAPI
import IdentityService
import Logging
import MockIdentityProvider
import Postgres
import PostgresService
import Redis
import ServiceKit
import ServiceProtocol
import Synchronization
import Testing

/// A clock the tests move forward instead of sleeping: the real time plus what they added, or,
/// once frozen, a time that only `advance` moves (so no speed of the machine can matter).
final class TestClock: Sendable {
    private let state = Mutex<(offset: TimeInterval, frozenAt: Date?)>((0, nil))

    func advance(by seconds: TimeInterval) {
        self.state.withLock { $0.offset += seconds }
    }

    /// Stops the clock where it stands.
    func freeze() {
        self.state.withLock { state in
            if state.frozenAt == nil { state.frozenAt = Date() }
        }
    }

    var now: Date {
        self.state.withLock { ($0.frozenAt ?? Date()).addingTimeInterval($0.offset) }
    }

    var identityClock: IdentityClock {
        IdentityClock { self.now }
    }
}

/// No `DATABASE_URL`: the tests fail loudly rather than skip.
struct MissingDatabase: Error, CustomStringConvertible {
    var description: String { "DATABASE_URL is not set: run the tests with scripts/test" }
}

/// One identity service in-process, wired to a mock provider over real HTTP and to the real
/// Postgres, called through a real RPC client.
struct IdentityHarness: Sendable {
    static let appleAudience = "com.example.latchkey"
    static let googleAudience = "1234-latchkey.apps.googleusercontent.com"
    static let serviceToken = "identity-test-token"

    let mock: MockIdentityProvider
    let endpoints: MockEndpoints
    let backend: IdentityBackend
    let client: RPCClient
    let clock: TestClock
    let postgres: PostgresClient

    /// Runs `body` against a fresh service; `environment` overrides or adds variables; user
    /// changes are announced on `redis` when given.
    static func run<T: Sendable>(
        environment: [String: String] = [:], mockConfiguration: MockIdentityProvider.Configuration = .init(),
        redis: RedisClient? = nil, _ body: (IdentityHarness) async throws -> T
    ) async throws -> T {
        guard let databaseURL = ProcessInfo.processInfo.environment["DATABASE_URL"] else {
            Issue.record("DATABASE_URL is not set")
            throw MissingDatabase()
        }
        var logger = Logger(label: "identity-test")
        logger.logLevel = .warning
        let mock = try MockIdentityProvider(configuration: mockConfiguration)
        return try await MockIdentityProviderServer.withRunningMock(provider: mock, logger: logger) { mock, endpoints in
            var values = endpoints.environment
            values["DATABASE_URL"] = databaseURL
            values["DATABASE_POOL_SIZE"] = "4"
            values["APPLE_AUDIENCES"] = appleAudience
            values["GOOGLE_AUDIENCES"] = googleAudience
            // The mock answers at once when idle; a loaded CI machine can take seconds.
            values["PROVIDER_HTTP_TIMEOUT"] = "60"
            values.merge(environment) { $1 }
            let env = EnvironmentReader(values)
            let postgres = try await BackendBootstrap.postgres(
                env, schema: "identity", migrations: IdentityApp.migrations, logger: logger)
            let clock = TestClock()
            let configuration = try IdentityConfiguration(env, environment: .development)
            let backend = try await IdentityBackend(
                configuration: configuration, postgres: postgres, redis: redis, clock: clock.identityClock, logger: logger)
            var router = RPCRouter()
            backend.register(on: &router)
            let server = try await RPCServer.bind(
                configuration: .init(serviceName: "identity", serviceToken: serviceToken), router: router, logger: logger)
            var clientConfiguration = RPCClient.Configuration(
                endpoints: [RPCEndpoint(host: "127.0.0.1", port: server.port)], serviceName: "identity",
                callerName: "identity-tests", serviceToken: serviceToken)
            clientConfiguration.callTimeout = .seconds(90)
            let result: Result<T, any Error>
            do {
                let value = try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await server.run() }
                    for service in backend.services { group.addTask { try await service.run() } }
                    defer { group.cancelAll() }
                    return try await RPCClient.withClient(configuration: clientConfiguration, logger: logger) { client in
                        try await body(
                            IdentityHarness(
                                mock: mock, endpoints: endpoints, backend: backend, client: client, clock: clock,
                                postgres: postgres))
                    }
                }
                result = .success(value)
            } catch {
                result = .failure(error)
            }
            await backend.shutdown()
            await postgres.shutdown()
            return try result.get()
        }
    }

    // MARK: Calls

    func signIn(_ credential: ProviderCredential) async throws -> SignInResult {
        try await self.client.call(Identity.signIn, credential)
    }

    /// Signs in with a fresh Apple token for `subject`.
    func signInApple(
        subject: String, email: String? = nil, emailVerified: MockBool? = nil, isPrivateEmail: MockBool? = nil,
        fullName: String? = nil, code: String? = nil
    ) async throws -> SignInResult {
        let token = try await self.appleToken(
            subject: subject, email: email, emailVerified: emailVerified, isPrivateEmail: isPrivateEmail)
        return try await self.signIn(
            ProviderCredential(provider: .apple, identityToken: token, fullName: fullName, authorizationCode: code))
    }

    /// Signs in with a fresh Apple token for `subject` and the authorization code Apple hands
    /// out with it (issued to `codeSubject` instead: someone else's code).
    func signInAppleWithCode(subject: String, email: String? = nil, codeSubject: String? = nil) async throws -> SignInResult {
        let code = await self.mock.mintAppleAuthorizationCode(subject: codeSubject ?? subject, audience: Self.appleAudience)
        return try await self.signInApple(subject: subject, email: email, code: code)
    }

    func signInGoogle(subject: String, email: String? = nil, emailVerified: MockBool? = nil, name: String? = nil)
        async throws -> SignInResult
    {
        let token = try await self.googleToken(subject: subject, email: email, emailVerified: emailVerified, name: name)
        return try await self.signIn(ProviderCredential(provider: .google, identityToken: token))
    }

    func appleToken(
        subject: String, email: String? = nil, emailVerified: MockBool? = nil, isPrivateEmail: MockBool? = nil,
        nonce: String? = nil, lifetimeSeconds: Int? = nil, defect: TokenDefect? = nil
    ) async throws -> String {
        try await self.mock.mintIdentityToken(
            .apple,
            MintRequest(
                subject: subject, audience: Self.appleAudience, email: email, emailVerified: emailVerified,
                isPrivateEmail: isPrivateEmail, nonce: nonce, lifetimeSeconds: lifetimeSeconds, defect: defect))
    }

    func googleToken(
        subject: String, email: String? = nil, emailVerified: MockBool? = nil, name: String? = nil, nonce: String? = nil,
        authorizedParty: String? = nil, issuer: String? = nil, defect: TokenDefect? = nil
    ) async throws -> String {
        try await self.mock.mintIdentityToken(
            .google,
            MintRequest(
                subject: subject, audience: Self.googleAudience, email: email, emailVerified: emailVerified,
                nonce: nonce, authorizedParty: authorizedParty, name: name, issuer: issuer, defect: defect))
    }

    func getUser(_ id: UUID) async throws -> User {
        try await self.client.call(Identity.getUser, UserIDParams(userID: id))
    }
}

/// Runs `body` and expects it to fail with the catalogue code `code`.
@discardableResult
func expectRPCError(
    _ code: ErrorCode, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
) async -> RPCError? {
    do {
        try await body()
        Issue.record("expected \(code), got success", sourceLocation: sourceLocation)
        return nil
    } catch let error as RPCError {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected \(code), got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// A subject and email no other test uses.
func uniqueSubject() -> String { "sub-" + UUID().uuidString.lowercased() }
func uniqueEmail() -> String { "user-\(UUID().uuidString.lowercased())@example.com" }
