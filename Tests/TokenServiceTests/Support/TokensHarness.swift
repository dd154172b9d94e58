import TestSupport
import TokensAPI
import Foundation
import Logging
import Postgres
import Redis
import ServiceKit
import ServiceLifecycle
import ServiceProtocol
import Testing
@testable import TokenService

/// One or more in-process `tokens` replicas (built by `TokensApp.make`, as the executable
/// does) sharing Postgres, Redis and a key folder, each on its own port, with an RPC client
/// per replica and direct Postgres/Redis access for checks.
struct TokensHarness: Sendable {
    static let serviceToken = "tokens-tests-service-token"

    let instances: [TokensApp.Instance]
    let clients: [RPCClient]
    let postgres: PostgresClient
    let redis: RedisClient
    let clock: MockClock
    let keys: URL

    var client: RPCClient { self.clients[0] }

    /// Starts `replicas` instances, runs `body`, then drains them.
    static func run<T: Sendable>(
        replicas: Int = 1, keys: URL? = nil, environment extra: [String: String] = [:], clock: MockClock = MockClock(),
        _ body: (TokensHarness) async throws -> T
    ) async throws -> T {
        let keys = try keys ?? seededKeysFolder()
        let env = EnvironmentReader(try tokensEnvironment(keys: keys, extra))
        var logger = Logger(label: "tokens-test")
        logger.logLevel = .warning
        var instances: [TokensApp.Instance] = []
        for _ in 0..<replicas {
            instances.append(try await TokensApp.make(env, logger: logger, clock: clock.tokenClock) {
                $0.cleanupInterval = .seconds(3600)
            })
        }
        let clients = instances.map { instance in
            var configuration = RPCClient.Configuration(
                endpoints: [RPCEndpoint(host: "127.0.0.1", port: instance.server.port)], serviceName: "tokens",
                callerName: "tokens-tests", serviceToken: Self.serviceToken)
            configuration.minimumBackoff = .milliseconds(10)
            configuration.callTimeout = .seconds(90)
            return RPCClient(configuration: configuration, logger: logger)
        }
        let postgres = PostgresClient(
            configuration: PostgresConfiguration(url: try requiredEnvironment("DATABASE_URL"), poolSize: 2), logger: logger)
        let redis = RedisClient(
            configuration: RedisConfiguration(url: try RedisURL(parsing: try requiredEnvironment("REDIS_URL"))), logger: logger)
        let harness = TokensHarness(
            instances: instances, clients: clients, postgres: postgres, redis: redis, clock: clock, keys: keys)
        let services: [any Service] = instances.flatMap(\.services) + clients
        let group = ServiceGroup(configuration: .init(services: services.map { .init(service: $0) }, logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                let result = try await body(harness)
                await group.triggerGracefulShutdown()
                try await tasks.waitForAll()
                await postgres.shutdown()
                await redis.shutdown()
                return result
            } catch {
                await group.triggerGracefulShutdown()
                try? await tasks.waitForAll()
                await postgres.shutdown()
                await redis.shutdown()
                throw error
            }
        }
    }

    func issue(
        _ userID: UUID = UUID(), admin: Bool = false, device: String? = "iPhone", boundTo key: String? = nil, on replica: Int = 0
    ) async throws -> TokenPair {
        try await self.clients[replica].call(
            Tokens.issue, IssueParams(userID: userID, isAdmin: admin, deviceName: device, dpopJKT: key))
    }

    func refresh(_ token: String, proofKey: String? = nil, on replica: Int = 0) async throws -> TokenPair {
        try await self.clients[replica].call(Tokens.refresh, RefreshParams(refreshToken: token, dpopJKT: proofKey))
    }

    func verify(_ accessToken: String, on replica: Int = 0) async throws -> VerifiedAccessToken {
        try await self.clients[replica].call(Tokens.verify, VerifyParams(accessToken: accessToken))
    }

    /// The error code a call fails with, or nil if it succeeds.
    func errorCode(_ call: () async throws -> some Sendable) async -> ErrorCode? {
        do {
            _ = try await call()
            return nil
        } catch let error as RPCError {
            return error.code
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }
}
