import TestSupport
import Foundation
import Testing

/// A missing or malformed variable stops each executable at once with one line naming it.
@Suite(.timeLimit(.minutes(5))) struct ConfigurationErrorTests {
    static let backends = ["identity", "tokens", "content-state"]

    /// Development unless the test says otherwise (or `asGiven`): production would name
    /// SERVICE_TOKEN first.
    private func expectRefusal(
        _ name: String, _ environment: [String: String], naming variable: String, asGiven: Bool = false
    ) async throws {
        let environment = asGiven ? environment : ["ENVIRONMENT": "development"].merging(environment) { $1 }
        let process = try ServiceProcess(name, environment: environment)
        let status = await process.waitForExit(timeout: .seconds(60))
        #expect(status == 2, "\(name) should exit with status 2")
        let lines = process.stderr.split(separator: "\n")
        #expect(lines.count == 1, "expected one line, got: \(process.stderr)")
        #expect(lines.first?.contains(variable) == true, "the line should name \(variable): \(process.stderr)")
        #expect(lines.first?.hasPrefix("\(name): configuration error:") == true)
    }

    @Test(arguments: backends)
    func missingDatabaseURLStopsTheService(_ name: String) async throws {
        try await self.expectRefusal(name, ["RPC_PORT": "0", "REDIS_URL": "redis://127.0.0.1:1"], naming: "DATABASE_URL")
    }

    @Test(arguments: backends)
    func malformedPortStopsTheService(_ name: String) async throws {
        try await self.expectRefusal(name, ["RPC_PORT": "seventy", "DATABASE_URL": "postgres://x@127.0.0.1:1/db"], naming: "RPC_PORT")
    }

    @Test(arguments: backends + ["gateway"])
    func productionWithoutServiceTokenRefusesToStart(_ name: String) async throws {
        try await self.expectRefusal(name, ["ENVIRONMENT": "production"], naming: "SERVICE_TOKEN")
    }

    /// A binary started by hand with nothing set is production: it refuses to run without a
    /// token rather than serve the public development one (issue 14).
    @Test(arguments: backends + ["gateway"])
    func nothingSetIsProductionAndRefusesWithoutServiceToken(_ name: String) async throws {
        try await self.expectRefusal(name, [:], naming: "SERVICE_TOKEN", asGiven: true)
    }

    @Test func malformedLogLevelIsNamed() async throws {
        try await self.expectRefusal("identity", ["LOG_LEVEL": "loud"], naming: "LOG_LEVEL")
    }

    @Test func malformedDatabaseURLIsNamed() async throws {
        try await self.expectRefusal("content-state", ["DATABASE_URL": "mysql://nope"], naming: "DATABASE_URL")
    }

    @Test func tokensNeedsRedisURL() async throws {
        let databaseURL = try requiredEnvironment("DATABASE_URL")
        try await self.expectRefusal("tokens", ["DATABASE_URL": databaseURL, "RPC_PORT": "0"], naming: "REDIS_URL")
    }

    @Test func gatewayRejectsMalformedEndpointLists() async throws {
        try await self.expectRefusal("gateway", ["TOKENS_ENDPOINTS": "tokens", "REDIS_URL": "redis://127.0.0.1:1"], naming: "TOKENS_ENDPOINTS")
    }
}
