import TestSupport
import TokensAPI
import Foundation
import Logging
import ServiceProtocol
import Testing
import TokenService

/// Two real `tokens` processes sharing the key folder (written by `tokens keygen`), Postgres
/// and Redis: stateless replicas.
@Suite struct ReplicaProcessTests {
    static let token = "replica-tests-service-token"

    @Test func aTokenIssuedByOneProcessIsRefreshedByTheOtherAndRotatesOnceAcrossBoth() async throws {
        let keys = try temporaryKeysFolder()
        let keygen = try ServiceProcess("tokens", arguments: ["keygen", "EdDSA"], environment: ["SIGNING_KEYS_DIR": keys.path])
        #expect(await keygen.waitForExit(timeout: .seconds(30)) == 0, "\(keygen.stderr)")
        #expect(keygen.stdout.contains("alg=EdDSA"))
        let ports = [try freePort(), try freePort()]
        let processes = try ports.map { port in
            try ServiceProcess("tokens", environment: [
                "ENVIRONMENT": "production",
                "DATABASE_URL": try requiredEnvironment("DATABASE_URL"),
                "REDIS_URL": try requiredEnvironment("REDIS_URL"),
                "RPC_HOST": "127.0.0.1",
                "RPC_PORT": "\(port)",
                "OPS_PORT": "0",
                "SERVICE_TOKEN": Self.token,
                "JWT_ISSUER": "https://auth.example.com",
                "JWT_AUDIENCE": "example-app",
                "SIGNING_ALG": "EdDSA",
                "SIGNING_KEYS_DIR": keys.path,
                "LOG_LEVEL": "warning",
            ])
        }
        defer { processes.forEach { $0.terminate() } }
        let clients = ports.map { port in
            var configuration = RPCClient.Configuration(
                endpoints: [RPCEndpoint(host: "127.0.0.1", port: port)], serviceName: "tokens", callerName: "replica-tests",
                serviceToken: Self.token)
            configuration.minimumBackoff = .milliseconds(20)
            configuration.maximumBackoff = .milliseconds(200)
            configuration.callTimeout = .seconds(90)
            return configuration
        }
        let logger = Logger(label: "test")
        try await RPCClient.withClient(configuration: clients[0], logger: logger) { first in
            try await RPCClient.withClient(configuration: clients[1], logger: logger) { second in
                let issued = try await first.call(
                    Tokens.issue, IssueParams(userID: UUID(), deviceName: "replica test"),
                    options: .init(timeout: .seconds(90)))
                let refreshed = try await second.call(
                    Tokens.refresh, RefreshParams(refreshToken: issued.refreshToken),
                    options: .init(timeout: .seconds(90)))
                #expect(refreshed.sessionID == issued.sessionID)
                let verified = try await first.call(Tokens.verify, VerifyParams(accessToken: refreshed.accessToken))
                #expect(verified.sessionID == issued.sessionID)
                let pairs = try await withThrowingTaskGroup(of: TokenPair.self) { group in
                    for index in 0..<50 {
                        let client = index % 2 == 0 ? first : second
                        group.addTask {
                            try await client.call(Tokens.refresh, RefreshParams(refreshToken: refreshed.refreshToken))
                        }
                    }
                    var pairs: [TokenPair] = []
                    for try await pair in group { pairs.append(pair) }
                    return pairs
                }
                #expect(Set(pairs).count == 1)
                #expect(pairs[0].refreshToken != refreshed.refreshToken)
            }
        }
        for process in processes {
            process.terminate()
            #expect(await process.waitForExit(timeout: .seconds(60)) == 0, "\(process.stderr)")
        }
        // Production with an empty folder refuses to start, naming the variable.
        let empty = try ServiceProcess("tokens", environment: [
            "ENVIRONMENT": "production", "SERVICE_TOKEN": Self.token, "JWT_ISSUER": "i", "JWT_AUDIENCE": "a",
            "SIGNING_KEYS_DIR": try temporaryKeysFolder().path, "RPC_PORT": "0",
            "DATABASE_URL": try requiredEnvironment("DATABASE_URL"), "REDIS_URL": try requiredEnvironment("REDIS_URL"),
        ])
        #expect(await empty.waitForExit(timeout: .seconds(30)) == 2)
        #expect(empty.stderr.contains("SIGNING_KEYS_DIR"))
    }
}
