import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Logging
import ServiceKit
import Testing
@testable import TokenService

/// Issue 42 item 4 (DESIGN.md §9.6): key files only the service reads in production, and the
/// activation delay counted from when this replica first saw a key.
@Suite struct SigningKeyProductionRulesTests {
    let logger = Logger(label: "test")

    func productionEnvironment(keys: URL) throws -> [String: String] {
        var env = try tokensEnvironment(keys: keys)
        env["ENVIRONMENT"] = "production"
        env["SERVICE_TOKEN"] = "a-production-service-token"
        env["JWT_ISSUER"] = "https://auth.example.com"
        env["JWT_AUDIENCE"] = "example-app"
        return env
    }

    @Test func aKeyFileGroupOrOthersCanReadStopsProductionNamingTheFile() async throws {
        let url = try temporaryKeysFolder()
        let key = try SigningKeyFolder(url: url).generate(.es256)
        let path = url.appendingPathComponent(key.fileName).path
        for mode in [0o644, 0o640, 0o604, 0o660] {
            #expect(chmod(path, mode_t(mode)) == 0)
            let error = await #expect(throws: ConfigurationError.self) {
                _ = try await TokensApp.make(EnvironmentReader(try self.productionEnvironment(keys: url)), logger: self.logger)
            }
            #expect(error?.variable == "SIGNING_KEYS_DIR")
            #expect(error?.description.contains(path) == true, "\(String(describing: error))")
            #expect(error?.description.contains("mode \(String(mode, radix: 8))") == true, "\(String(describing: error))")
            // Development reads it.
            #expect(try SigningKeyFolder(url: url).load().count == 1)
        }
        for mode in [0o600, 0o400] {
            #expect(chmod(path, mode_t(mode)) == 0)
            #expect(try SigningKeyFolder(url: url, requirePrivateFiles: true).load().count == 1)
        }
        // A Kubernetes Secret volume's files are links: the mode of what they point to counts.
        let target = try temporaryKeysFolder().appendingPathComponent("target.pem")
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: target)
        #expect(chmod(target.path, 0o644) == 0)
        try FileManager.default.createSymbolicLink(atPath: url.appendingPathComponent("linked.pem").path, withDestinationPath: target.path)
        #expect(throws: SigningKeyError.readableKeyFile(url.appendingPathComponent("linked.pem").path, "644")) {
            try SigningKeyFolder(url: url, requirePrivateFiles: true).load()
        }
        #expect(chmod(target.path, 0o400) == 0)
        #expect(try SigningKeyFolder(url: url, requirePrivateFiles: true).load().count == 2)
    }

    /// A key whose name says it was made two days ago, mounted now, waits the whole delay.
    @Test func aKeySignsOnlyOnceThisReplicaHasSeenItForTheActivationDelay() async throws {
        let url = try temporaryKeysFolder()
        let folder = SigningKeyFolder(url: url)
        let start = Date()
        let old = try folder.generate(.es256, now: start.addingTimeInterval(-3 * 86_400))
        let ring = try await KeyRing.load(
            folder: folder, algorithm: .es256, activationDelay: .seconds(900), generateIfMissing: false, logger: self.logger, now: start)
        #expect(ring.signingKid == old.kid)
        let added = try folder.generate(.es256, now: start.addingTimeInterval(-2 * 86_400))
        await ring.reload(logger: self.logger, now: start.addingTimeInterval(10))
        #expect(ring.jwks.keys.map(\.kid) == [added.kid, old.kid], "published at once")
        #expect(ring.signingKid == old.kid, "not signing: this replica has only just seen it")
        await ring.reload(logger: self.logger, now: start.addingTimeInterval(10 + 899))
        #expect(ring.signingKid == old.kid)
        await ring.reload(logger: self.logger, now: start.addingTimeInterval(10 + 900))
        #expect(ring.signingKid == added.kid)
    }

    /// A replica starting on a folder sees every key for the first time: the oldest signs until
    /// the newest has been seen for the delay.
    @Test func aStartingReplicaSignsWithTheOldestKeyUntilTheNewestHasWaited() async throws {
        let url = try temporaryKeysFolder()
        let folder = SigningKeyFolder(url: url)
        let start = Date()
        let old = try folder.generate(.es256, now: start.addingTimeInterval(-86_400))
        let new = try folder.generate(.es256, now: start.addingTimeInterval(-3_600))
        let ring = try await KeyRing.load(
            folder: folder, algorithm: .es256, activationDelay: .seconds(900), generateIfMissing: false, logger: self.logger, now: start)
        #expect(ring.signingKid == old.kid)
        await ring.reload(logger: self.logger, now: start.addingTimeInterval(900))
        #expect(ring.signingKid == new.kid)
    }

    @Test func productionRefusesAnActivationDelayBelowItsMinimum() throws {
        var env = try self.productionEnvironment(keys: try temporaryKeysFolder())
        env["SIGNING_KEY_ACTIVATION_DELAY"] = "609"
        let error = #expect(throws: ConfigurationError.self) { try TokensConfiguration(EnvironmentReader(env)) }
        #expect(error?.variable == "SIGNING_KEY_ACTIVATION_DELAY")
        #expect(error?.description.contains("at least 610 s") == true, "\(String(describing: error))")
        env["SIGNING_KEY_ACTIVATION_DELAY"] = "610"
        #expect(try TokensConfiguration(EnvironmentReader(env)).signingKeyActivationDelay == .seconds(610))
        // A slower reload needs a longer delay.
        env["SIGNING_KEYS_RELOAD_INTERVAL"] = "60"
        #expect(throws: ConfigurationError.self) { try TokensConfiguration(EnvironmentReader(env)) }
        env["SIGNING_KEY_ACTIVATION_DELAY"] = nil
        #expect(try TokensConfiguration(EnvironmentReader(env)).signingKeyActivationDelay == .seconds(900))
        // Development and tests may use any delay.
        env["ENVIRONMENT"] = "development"
        env["SIGNING_KEY_ACTIVATION_DELAY"] = "0"
        #expect(try TokensConfiguration(EnvironmentReader(env)).signingKeyActivationDelay == .zero)
    }
}
