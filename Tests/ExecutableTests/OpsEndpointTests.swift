import TestSupport
import Foundation
import Logging
import ServiceProtocol
import Testing

/// Each backend serves `/healthz`, `/readyz` and `/metrics` on its `OPS_PORT`.
@Suite struct OpsEndpointTests {
    static let token = "ops-tests-service-token"

    @Test(arguments: [("identity", ["postgres"]), ("tokens", ["postgres", "redis"]), ("content-state", ["postgres"])])
    func backendServesProbesAndRPCMetrics(_ name: String, _ checks: [String]) async throws {
        let rpcPort = try freePort()
        let opsPort = try freePort()
        let process = try ServiceProcess(name, environment: [
            "DATABASE_URL": try requiredEnvironment("DATABASE_URL"),
            "REDIS_URL": try requiredEnvironment("REDIS_URL"),
            "RPC_HOST": "127.0.0.1",
            "RPC_PORT": "\(rpcPort)",
            "OPS_PORT": "\(opsPort)",
            "SERVICE_TOKEN": Self.token,
            "LOG_LEVEL": "warning",
        ])
        let base = "http://127.0.0.1:\(opsPort)"

        let healthz = try await httpGetWhenUp(URL(string: "\(base)/healthz")!)
        #expect(healthz?.status == 200, "stderr: \(process.stderr) stdout: \(process.stdout)")
        #expect(healthz?.text == #"{"status":"ok"}"#)

        let readyz = try #require(await httpGet(URL(string: "\(base)/readyz")!))
        #expect(readyz.status == 200)
        let readiness = try JSONDecoder().decode(Readiness.self, from: readyz.body)
        #expect(readiness.status == "ok")
        #expect(readiness.checks == Dictionary(uniqueKeysWithValues: checks.map { ($0, "ok") }))

        var configuration = RPCClient.Configuration(
            endpoints: [RPCEndpoint(host: "127.0.0.1", port: rpcPort)], serviceName: name,
            callerName: "executable-tests", serviceToken: Self.token)
        configuration.minimumBackoff = .milliseconds(20)
        _ = try await RPCClient.withClient(configuration: configuration, logger: Logger(label: "test")) { client in
            try await client.call(Health.method, Empty(), as: Health.Result.self, options: .init(timeout: .seconds(30)))
        }

        let metrics = try #require(await httpGet(URL(string: "\(base)/metrics")!))
        #expect(metrics.status == 200)
        #expect(metrics.contentType?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains(#"rpc_server_requests_total{method="health",code="ok"} 1"#), "\(metrics.text)")
        #expect(metrics.text.contains(#"rpc_server_request_duration_seconds_count{method="health"} 1"#))
        #expect(metrics.text.contains("postgres_pool_connections "))

        process.terminate()
        #expect(await process.waitForExit(timeout: .seconds(15)) == 0, "\(name) should drain and exit 0; output: \(process.stdout)")
    }

    /// The body of `/readyz`.
    struct Readiness: Decodable {
        var status: String
        var checks: [String: String]
    }
}
