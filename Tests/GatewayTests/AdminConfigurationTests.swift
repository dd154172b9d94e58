import HummingbirdBcrypt
import ServiceKit
import Testing

@testable import Gateway

@Suite("Admin credentials")
struct AdminConfigurationTests {
    func configuration(_ values: [String: String], _ environment: DeploymentEnvironment) throws -> AdminConfiguration {
        try AdminConfiguration(EnvironmentReader(values), environment: environment)
    }

    @Test func bcryptHashIsCheckedAndPlainPasswordIsDevelopmentOnly() async throws {
        let hash = Bcrypt.hash("s3cret-admin", cost: 4)
        let production = try self.configuration(["ADMIN_PASSWORD_HASH": hash], .production)
        #expect(production.secureCookie)
        #expect(try await AdminRoutes.passwordMatches("s3cret-admin", production.credential))
        #expect(try await !AdminRoutes.passwordMatches("s3cret-admin ", production.credential))

        #expect(throws: ConfigurationError.self) { try self.configuration(["ADMIN_PASSWORD": "x"], .production) }
        #expect(throws: ConfigurationError.self) { try self.configuration(["ADMIN_PASSWORD_HASH": "plain"], .production) }
        let development = try self.configuration(["ADMIN_PASSWORD": "dev-pass"], .development)
        #expect(!development.secureCookie)
        #expect(try await AdminRoutes.passwordMatches("dev-pass", development.credential))
        #expect(try await !AdminRoutes.passwordMatches("dev-pas", development.credential))
    }

    @Test func sessionKeysHoldOnlyAHash() {
        let token = AdminRoutes.newSessionToken()
        #expect(token.count >= 43)
        let key = AdminRoutes.key(token)
        #expect(key.hasPrefix("latchkey:admin:session:"))
        #expect(!key.contains(token))
        #expect(AdminRoutes.newSessionToken() != token)
    }
}
