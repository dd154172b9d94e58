import Logging
import Testing

@testable import ServiceKit

@Suite struct EnvironmentReaderTests {
    @Test func readsTypedValuesAndDefaults() throws {
        let env = EnvironmentReader(["N": "42", "B": "TRUE", "S": "  text ", "L": "a, b,,c", "EMPTY": ""])
        #expect(try env.int("N", default: 1) == 42)
        #expect(try env.int("MISSING", default: 7) == 7)
        #expect(try env.bool("B", default: false))
        #expect(env.string("S", default: "x") == "text")
        #expect(env.string("EMPTY", default: "fallback") == "fallback")
        #expect(env.list("L") == ["a", "b", "c"])
        #expect(try env.seconds("N", default: 1) == .seconds(42))
    }

    @Test func errorsNameTheVariable() {
        let env = EnvironmentReader(["PORT": "99999", "FLAG": "maybe", "LEVEL": "loud"])
        #expect(throws: ConfigurationError.invalid("PORT", "an integer in 0...65535")) { try env.port("PORT", default: 1) }
        #expect(throws: ConfigurationError.missing("DATABASE_URL")) { try env.required("DATABASE_URL") }
        #expect((try? env.bool("FLAG", default: true)) == nil)
        do {
            _ = try env.choice("LEVEL", default: Logger.Level.info)
            Issue.record("expected an error")
        } catch let error as ConfigurationError {
            #expect(error.variable == "LEVEL")
            #expect(error.description.contains("LEVEL is invalid"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func productionRefusesAMissingOrShortServiceToken() throws {
        #expect(throws: ConfigurationError.missing("SERVICE_TOKEN")) {
            try CommonConfiguration(EnvironmentReader(["ENVIRONMENT": "production"]), defaultRPCPort: 1, defaultOpsPort: 2)
        }
        #expect(throws: ConfigurationError.self) {
            try CommonConfiguration(EnvironmentReader(["ENVIRONMENT": "production", "SERVICE_TOKEN": "short"]), defaultRPCPort: 1, defaultOpsPort: 2)
        }
        let production = try CommonConfiguration(
            EnvironmentReader(["ENVIRONMENT": "production", "SERVICE_TOKEN": "a-long-enough-secret-token"]), defaultRPCPort: 1, defaultOpsPort: 2)
        #expect(production.logFormat == .json)
        #expect(production.rpcHost == "0.0.0.0")
        let development = try CommonConfiguration(
            EnvironmentReader(["ENVIRONMENT": "development"]), defaultRPCPort: 7001, defaultOpsPort: 9001)
        #expect(development.serviceToken == CommonConfiguration.developmentServiceToken)
        #expect(development.rpcPort == 7001 && development.opsPort == 9001)
        #expect(development.logFormat == .text)
    }

    /// Nothing set is production (issue 14: a binary started by hand must not serve the public
    /// development token on every interface).
    @Test func nothingSetIsProductionAndRefusedWithoutAToken() {
        #expect(throws: ConfigurationError.missing("SERVICE_TOKEN")) {
            try CommonConfiguration(EnvironmentReader([:]), defaultRPCPort: 1, defaultOpsPort: 2)
        }
    }

    @Test func theFixedDevelopmentTokenListensOnLoopbackOnly() throws {
        let fixed = try CommonConfiguration(EnvironmentReader(["ENVIRONMENT": "development"]), defaultRPCPort: 1, defaultOpsPort: 2)
        #expect(fixed.rpcHost == "127.0.0.1")
        for host in ["127.0.0.1", "127.1.2.3", "::1", "localhost"] {
            let chosen = try CommonConfiguration(
                EnvironmentReader(["ENVIRONMENT": "development", "RPC_HOST": host]), defaultRPCPort: 1, defaultOpsPort: 2)
            #expect(chosen.rpcHost == host)
        }
        for host in ["0.0.0.0", "10.0.0.5", "::", "identity", "127.0.0.1.example.com"] {
            #expect(throws: ConfigurationError.self, "\(host)") {
                try CommonConfiguration(
                    EnvironmentReader(["ENVIRONMENT": "development", "RPC_HOST": host]), defaultRPCPort: 1, defaultOpsPort: 2)
            }
        }
        // A token of one's own: any interface, as in production.
        let own = try CommonConfiguration(
            EnvironmentReader(["ENVIRONMENT": "development", "SERVICE_TOKEN": "dev-own-token"]), defaultRPCPort: 1, defaultOpsPort: 2)
        #expect(own.rpcHost == "0.0.0.0")
    }

    @Test func healthReportsDegradedWithoutErrorText() async {
        struct Secret: Error {}
        let result = await HealthCheck.run(
            [HealthCheck("postgres") {}, HealthCheck("redis") { throw Secret() }], logger: Logger(label: "t"))
        #expect(result.status == "degraded")
        #expect(result.checks == ["postgres": "ok", "redis": "unavailable"])
    }
}
