import Foundation
import IdentityService
import ServiceKit
import Testing

@Suite struct ConfigurationTests {
    @Test func productionRefusesPlainHTTPProviderURLs() {
        let env = EnvironmentReader(["APPLE_JWKS_URL": "http://127.0.0.1:1/keys"])
        #expect(throws: ConfigurationError.invalid("APPLE_JWKS_URL", "an https:// URL")) {
            try IdentityConfiguration(env, environment: .production)
        }
        #expect((try? IdentityConfiguration(env, environment: .development)) != nil)
    }

    @Test func appleRESTNeedsAllItsVariablesAndAnEncryptionKeyInProduction() throws {
        #expect(throws: ConfigurationError.missing("APPLE_KEY_ID")) {
            try IdentityConfiguration(EnvironmentReader(["APPLE_TEAM_ID": "T"]), environment: .development)
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("key-\(UUID()).p8").path
        try "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".write(toFile: path, atomically: true, encoding: .utf8)
        let values = ["APPLE_TEAM_ID": "T", "APPLE_KEY_ID": "K", "APPLE_PRIVATE_KEY_PATH": path]
        #expect(throws: ConfigurationError.missing("APPLE_TOKEN_ENCRYPTION_KEY")) {
            try IdentityConfiguration(EnvironmentReader(values), environment: .production)
        }
        #expect(throws: ConfigurationError.invalid("APPLE_TOKEN_ENCRYPTION_KEY", "32 bytes in base64")) {
            try IdentityConfiguration(
                EnvironmentReader(values.merging(["APPLE_TOKEN_ENCRYPTION_KEY": "c2hvcnQ="]) { $1 }), environment: .development)
        }
        let configured = try IdentityConfiguration(EnvironmentReader(values), environment: .development)
        #expect(configured.appleREST?.tokenEncryptionKey.count == 32)
    }

    @Test func audiencesAreCommaLists() throws {
        let configuration = try IdentityConfiguration(
            EnvironmentReader(["APPLE_AUDIENCES": "com.a, com.b", "GOOGLE_AUDIENCES": "g1"]), environment: .development)
        #expect(configuration.apple.audiences == ["com.a", "com.b"])
        #expect(configuration.google.audiences == ["g1"])
        #expect(configuration.autoLinkByEmail)
    }
}
