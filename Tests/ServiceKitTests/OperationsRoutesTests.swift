import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@testable import ServiceKit

/// The operations endpoints and the HTTP metrics middleware, on an in-process router.
@Suite struct OperationsRoutesTests {
    struct ProbeFailed: Error {}

    private func json(_ buffer: ByteBuffer) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    @Test func healthzAnswersOKWithoutRunningTheChecks() async throws {
        let router = Router()
        addOperationsRoutes(to: router, checks: [HealthCheck("database") { throw ProbeFailed() }])
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"status":"ok"}"#)
            }
        }
    }

    @Test func readyzAnswers503NamingTheFailingCheck() async throws {
        let router = Router()
        addOperationsRoutes(
            to: router, checks: [HealthCheck("database") {}, HealthCheck("cache") { throw ProbeFailed() }])
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .serviceUnavailable)
                let body = try self.json(response.body)
                #expect(body["status"] as? String == "unavailable")
                #expect(body["checks"] as? [String: String] == ["database": "ok", "cache": "unavailable"])
            }
        }
    }

    @Test func readyzAnswersOKWhenEveryCheckPasses() async throws {
        let router = Router()
        addOperationsRoutes(to: router, checks: [HealthCheck("database") {}])
        try await Application(router: router).test(.router) { client in
            try await client.execute(uri: "/readyz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == #"{"checks":{"database":"ok"},"status":"ok"}"#)
            }
        }
    }

    @Test func middlewareCountsRequestsByRoutePatternAndStatus() async throws {
        MetricsSetup.bootstrap()
        let router = Router()
        router.add(middleware: HTTPMetricsMiddleware())
        addOperationsRoutes(to: router, checks: [])
        router.get("/widgets/{id}") { _, _ in "widget" }
        router.post("/widgets") { _, _ -> String in throw HTTPError(.conflict) }
        try await Application(router: router).test(.router) { client in
            for id in ["1", "2"] {
                try await client.execute(uri: "/widgets/\(id)", method: .get) { #expect($0.status == .ok) }
            }
            try await client.execute(uri: "/widgets", method: .post) { #expect($0.status == .conflict) }
            try await client.execute(uri: "/widgets/1/parts/secret-path", method: .get) { #expect($0.status == .notFound) }
            try await client.execute(uri: "/metrics", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain; version=0.0.4") == true)
                let text = String(buffer: response.body)
                #expect(text.contains(#"http_requests_total{method="GET",route="/widgets/{id}",status="200"} 2"#), "\(text)")
                #expect(text.contains(#"http_requests_total{method="POST",route="/widgets",status="409"} 1"#))
                #expect(text.contains(#"http_requests_total{method="GET",route="unmatched",status="404"}"#))
                #expect(text.contains(#"http_request_duration_seconds_count{method="GET",route="/widgets/{id}"} 2"#))
                #expect(!text.contains("secret-path"))
            }
        }
    }
}
