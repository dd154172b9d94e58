import TestSupport
import Foundation
import Logging
import ServiceProtocol
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Each executable starts on real Postgres and Redis, answers `hello` and `health` (the
/// gateway: `GET /healthz`), and exits cleanly on SIGTERM.
@Suite(.timeLimit(.minutes(5))) struct ServiceStartupTests {
    static let token = "service-startup-tests-\(UUID().uuidString)"

    private func environment(port: Int) throws -> [String: String] {
        [
            "ENVIRONMENT": "development",
            "DATABASE_URL": try requiredEnvironment("DATABASE_URL"),
            "REDIS_URL": try requiredEnvironment("REDIS_URL"),
            "RPC_HOST": "127.0.0.1",
            "RPC_PORT": "\(port)",
            "OPS_PORT": "\(try freePort())",
            "SERVICE_TOKEN": Self.token,
            "LOG_LEVEL": "info",
        ]
    }

    @Test(arguments: [("identity", ["postgres"]), ("tokens", ["postgres", "redis"]), ("content-state", ["postgres"])])
    func backendAnswersHealthAndDrainsARequestInFlightOnSIGTERM(_ name: String, _ checks: [String]) async throws {
        let backend = try await BackendProcess.started(name)
        let process = backend.process
        try await backend.withClient { client in
            let health = try await client.call(Health.method, Empty(), as: Health.Result.self)
            #expect(health.status == "ok", "stderr: \(process.stderr)")
            #expect(health.checks == Dictionary(uniqueKeysWithValues: checks.map { ($0, "ok") }))

            // A request that waits on a row the test holds locked is in flight when SIGTERM
            // comes: the service stops taking connections, finishes it, then exits 0.
            let slow = try await SlowRequest.prepare(for: name, client: client)
            let call = try await HeldRowLock.with(slow.lockSQL, slow.bindings) { lock in
                let call = Task { try await slow.call() }
                try await lock.waitUntilSomeoneWaits()
                process.terminate()
                try await waitUntil("\(name) refuses new connections") { !acceptsConnections(port: backend.rpcPort) }
                #expect(process.process.isRunning, "\(name) exited with a request in flight")
                return call
            }
            try await call.value
        }
        let status = await process.waitForExit(timeout: .seconds(60))
        #expect(status == 0, "\(name) should drain and exit 0 on SIGTERM; output: \(process.stdout)")
    }

    @Test func backendRefusesAConnectionWithTheWrongToken() async throws {
        let port = try freePort()
        let process = try ServiceProcess("content-state", environment: try self.environment(port: port))
        // Listening first: a refused connection would end the call with the same code, and a
        // SIGTERM before the service runs would test the start, not the drain.
        try await waitUntil("content-state listens") {
            #expect(process.process.isRunning, "content-state exited: \(process.stderr) \(process.stdout)")
            return acceptsConnections(port: port) || !process.process.isRunning
        }
        var configuration = RPCClient.Configuration(
            endpoints: [RPCEndpoint(host: "127.0.0.1", port: port)], serviceName: "content-state",
            callerName: "executable-tests", serviceToken: "the-wrong-token-entirely")
        configuration.minimumBackoff = .milliseconds(20)
        let error = await #expect(throws: RPCError.self) {
            try await RPCClient.withClient(configuration: configuration, logger: Logger(label: "test")) { client in
                try await client.call(Health.method, Empty(), as: Health.Result.self, options: .init(timeout: .seconds(5)))
            }
        }
        #expect(error?.code == .serviceUnavailable)
        #expect(process.stdout.contains("hello"), "the refusal is logged: \(process.stdout)")
        process.terminate()
        #expect(await process.waitForExit(timeout: .seconds(60)) == 0, "output: \(process.stdout) \(process.stderr)")
    }

    /// A SIGTERM while the service still waits for Postgres (an orchestrator stopping a pod that
    /// never became ready) stops it with status 0 and a line saying so, not by the signal.
    @Test func aSignalWhileStartingStopsTheServiceWithStatusZero() async throws {
        var environment = try self.environment(port: try freePort())
        environment["DATABASE_URL"] = "postgres://postgres@127.0.0.1:\(try freePort())/postgres"
        let process = try ServiceProcess("content-state", environment: environment)
        try await waitUntil("content-state waits for Postgres") { process.stdout.contains("Postgres not ready, retrying") }
        process.terminate()
        let status = await process.waitForExit(timeout: .seconds(20))
        #expect(status == 0, "output: \(process.stdout) \(process.stderr)")
        #expect(process.process.terminationReason == .exit)
        #expect(process.stdout.contains("Stopped while starting"))
    }

    @Test func gatewayAnswersHealthzAndDrainsOnSIGTERM() async throws {
        let port = try freePort()
        var environment = try self.environment(port: 0)
        environment["HTTP_HOST"] = "127.0.0.1"
        environment["HTTP_PORT"] = "\(port)"
        let process = try ServiceProcess("gateway", environment: environment)
        let url = URL(string: "http://127.0.0.1:\(port)/healthz")!
        let deadline = ContinuousClock.now + .seconds(90)
        var body: [String: String]?
        while body == nil, ContinuousClock.now < deadline {
            if let (data, response) = try? await URLSession.shared.data(from: url),
                (response as? HTTPURLResponse)?.statusCode == 200
            {
                body = try JSONDecoder().decode([String: String].self, from: data)
            } else {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
        #expect(body == ["status": "ok"], "stderr: \(process.stderr) stdout: \(process.stdout)")

        // Unknown routes get the JSON error body, with the caller's request id echoed.
        var request = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/v1/nowhere")!)
        request.setValue("trace-123", forHTTPHeaderField: "X-Request-ID")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 404)
        #expect(http.value(forHTTPHeaderField: "X-Request-ID") == "trace-123")
        let error = try JSONDecoder().decode([String: [String: String]].self, from: data)["error"]
        #expect(error == ["code": "not_found", "message": "Not found", "request_id": "trace-123"])

        // A declared body over MAX_BODY_BYTES is refused before it is read.
        var upload = URLRequest(url: URL(string: "http://127.0.0.1:\(port)/api/v1/auth/refresh")!)
        upload.httpMethod = "POST"
        upload.httpBody = Data(repeating: UInt8(ascii: "a"), count: 70_000)
        let (tooLargeData, tooLarge) = try await URLSession.shared.data(for: upload)
        #expect((tooLarge as? HTTPURLResponse)?.statusCode == 413)
        #expect(String(decoding: tooLargeData, as: UTF8.self).contains("payload_too_large"))
        #expect((tooLarge as? HTTPURLResponse)?.value(forHTTPHeaderField: "X-Request-ID")?.isEmpty == false)
        process.terminate()
        #expect(await process.waitForExit(timeout: .seconds(60)) == 0)

        // One line per request, naming it once: by the id the client sent, not Hummingbird's own as well.
        let lines = process.stdout.split(separator: "\n").filter { $0.contains("request.id=trace-123") }
        #expect(lines.count == 1, "stdout: \(process.stdout)")
        #expect(lines.first?.contains("http.method=GET") == true)
        #expect(lines.first?.contains("http.status=404") == true)
        #expect(lines.first?.hasSuffix("[Gateway] request") == true)
        #expect(!process.stdout.contains("hb.request.id"), "stdout: \(process.stdout)")
    }
}
