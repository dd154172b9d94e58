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

    /// Starts the executable `name` and waits until `health` says ok (it started and
    /// migrated). A port that `freePort` chose and another process took before ours bound it
    /// is retried on new ports; any other failure to start throws with the process's output.
    static func started(
        _ name: String, _ extra: [String: String] = [:], token: String = "executable-tests-\(UUID().uuidString)"
    ) async throws -> BackendProcess {
        for attempt in 1... {
            let backend = try BackendProcess(name, extra, token: token)
            do {
                try await backend.waitUntilHealthy()
                return backend
            } catch let failure as BackendStartFailure where attempt < 3 && failure.output.contains("Address already in use") {
                continue
            }
        }
        fatalError("unreachable")
    }

    func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(self.opsPort)\(path)")! }

    func withClient<T: Sendable>(callTimeout: Duration = .seconds(90), _ body: (RPCClient) async throws -> T) async throws -> T {
        var configuration = RPCClient.Configuration(
            endpoints: [RPCEndpoint(host: "127.0.0.1", port: self.rpcPort)], serviceName: self.process.name,
            callerName: "executable-tests", serviceToken: self.token)
        configuration.minimumBackoff = .milliseconds(20)
        configuration.callTimeout = callTimeout
        return try await RPCClient.withClient(configuration: configuration, logger: Logger(label: "test"), body)
    }

    /// Waits until `health` answers ok (at most two minutes: a loaded machine). Throws
    /// `BackendStartFailure`, with what the process printed, when it exits first or never answers.
    func waitUntilHealthy() async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            guard self.process.process.isRunning else {
                throw BackendStartFailure(name: self.process.name, output: self.process.stderr + self.process.stdout, exited: true)
            }
            if let health = try? await self.withClient(callTimeout: .seconds(2), { try await $0.call(Health.method, Empty(), as: Health.Result.self) }),
                health.status == "ok"
            {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw BackendStartFailure(name: self.process.name, output: self.process.stderr + self.process.stdout, exited: false)
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

/// A backend that exited before it answered `health`, or never answered in time.
struct BackendStartFailure: Error, CustomStringConvertible {
    var name: String
    var output: String
    var exited: Bool

    var description: String {
        "\(self.name) \(self.exited ? "exited before it was healthy" : "was not healthy in 120 s"); it printed:\n\(self.output.suffix(3000))"
    }
}
