import HummingbirdBcrypt
import ServiceKit
import Testing

@testable import Gateway

@Suite("Admin credentials")
struct AdminConfigurationTests {
    func configuration(_ values: [String: String], _ environment: DeploymentEnvironment) throws -> AdminConfiguration {
        try AdminConfiguration(EnvironmentReader(values), environment: environment)
    }

    /// A hash below bcrypt cost 10 is refused at start, naming the variable; the fingerprint
    /// admin sessions are bound to changes with the hash.
    @Test func aCheapBcryptHashIsRefusedAndEachHashHasItsFingerprint() throws {
        let cheap = Bcrypt.hash("s3cret-admin", cost: 9)
        let error = #expect(throws: ConfigurationError.self) { try self.configuration(["ADMIN_PASSWORD_HASH": cheap], .production) }
        #expect(error?.variable == "ADMIN_PASSWORD_HASH")
        let first = try self.configuration(["ADMIN_PASSWORD_HASH": Bcrypt.hash("s3cret-admin", cost: 10)], .production)
        let second = try self.configuration(["ADMIN_PASSWORD_HASH": Bcrypt.hash("s3cret-admin", cost: 10)], .production)
        #expect(first.credentialFingerprint != second.credentialFingerprint, "a new hash (a new salt) ends the old sessions")
        #expect(first.credentialFingerprint.count == 64)
    }

    @Test func bcryptHashIsCheckedAndPlainPasswordIsDevelopmentOnly() async throws {
        let hash = Bcrypt.hash("s3cret-admin", cost: 10)
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
