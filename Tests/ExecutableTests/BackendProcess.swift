import Foundation
import Logging
import ServiceProtocol
import TestSupport
import Testing

/// A backend executable on its own RPC and ops ports, on the test run's Postgres and Redis,
/// with a client for it.
struct BackendProcess {
    /// Its own SERVICE_TOKEN: a client that reached another test's process by mistake is
    /// refused loudly instead of talking to a service configured otherwise.
    let token: String

    let process: ServiceProcess
    let rpcPort: Int
    let opsPort: Int

    init(_ name: String, _ extra: [String: String] = [:], token: String = "executable-tests-\(UUID().uuidString)") throws {
        self.token = token
        self.rpcPort = try freePort()
        self.opsPort = try freePort()
        self.process = try ServiceProcess(name, environment: [
            "ENVIRONMENT": "development",
            "DATABASE_URL": try requiredEnvironment("DATABASE_URL"),
            "REDIS_URL": try requiredEnvironment("REDIS_URL"),
            "RPC_HOST": "127.0.0.1",
            "RPC_PORT": "\(self.rpcPort)",
            "OPS_PORT": "\(self.opsPort)",
            "SERVICE_TOKEN": token,
            "LOG_LEVEL": "warning",
        ].merging(extra) { _, new in new })
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(self.opsPort)\(path)")! }

    func withClient<T: Sendable>(_ body: (RPCClient) async throws -> T) async throws -> T {
        var configuration = RPCClient.Configuration(
            endpoints: [RPCEndpoint(host: "127.0.0.1", port: self.rpcPort)], serviceName: self.process.name,
            callerName: "executable-tests", serviceToken: self.token)
        configuration.minimumBackoff = .milliseconds(20)
        configuration.callTimeout = .seconds(90)
        return try await RPCClient.withClient(configuration: configuration, logger: Logger(label: "test"), body)
    }

    /// Waits until `health` answers (the process started and migrated) and says ok.
    func waitUntilHealthy() async throws {
        let health = try await self.withClient { try await $0.call(Health.method, Empty(), as: Health.Result.self) }
        #expect(health.status == "ok", "\(self.process.stderr)")
    }

    func metrics() async throws -> String {
        let answer = try #require(await httpGet(self.url("/metrics")))
        #expect(answer.status == 200)
        #expect(answer.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
        return answer.text
    }

    func stop() async {
        self.process.terminate()
        let status = await self.process.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "\(self.process.name) should drain and exit 0; output: \(self.process.stdout)")
    }
}
