import TextCoding
import Crypto
import TokensAPI
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import JWTKit
import Logging
import ServiceKit
import ServiceProtocol
import Testing
import _CryptoExtras
@testable import TokenService

/// Signing keys: the folder, thumbprints, generation, rotation and the published JWKS.
@Suite struct SigningKeyTests {
    let logger = Logger(label: "test")

    /// RFC 7638 section 3.1: the example RSA key and its thumbprint.
    @Test func kidIsTheRFC7638Thumbprint() throws {
        var jwk = PublicJWK(try SigningKey.generateMaterial(.eddsa))
        jwk.kty = "RSA"
        jwk.crv = nil
        jwk.x = nil
        jwk.e = "AQAB"
        jwk.n = "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw"
        #expect(JWKThumbprint.kid(of: jwk) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
    }

    @Test func everyPEMInTheFolderIsLoadedAndPublished() async throws {
        let url = try temporaryKeysFolder()
        let folder = SigningKeyFolder(url: url)
        // Keys written by other tools load too: PKCS#8 RSA and SEC1 P-256.
        let rsa = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        try Data(rsa.pkcs8PEMRepresentation.utf8).write(to: url.appendingPathComponent("a-rsa.pem"))
        let p256 = P256.Signing.PrivateKey()
        try Data(p256.pemRepresentation.utf8).write(to: url.appendingPathComponent("b-ec.pem"))
        try folder.generate(.eddsa)
        try Data("not a key".utf8).write(to: url.appendingPathComponent("README.txt"))
        let ring = try await KeyRing.load(folder: folder, algorithm: .rs256, generateIfMissing: false, logger: self.logger)
        let jwks = ring.jwks
        #expect(Set(jwks.keys.map(\.kty)) == ["RSA", "EC", "OKP"])
        #expect(Set(jwks.keys.compactMap(\.alg)) == ["RS256", "ES256", "EdDSA"])
        for jwk in jwks.keys {
            var bare = jwk
            bare.kid = nil
            #expect(jwk.kid == JWKThumbprint.kid(of: bare))
        }
        #expect(ring.signingKid == jwks.keys.first { $0.kty == "RSA" }?.kid)
    }

    @Test func anUnreadablePEMStopsTheLoadNamingTheFile() async throws {
        let url = try temporaryKeysFolder()
        try Data("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n".utf8).write(to: url.appendingPathComponent("broken.pem"))
        #expect(throws: SigningKeyError.unreadableFile("broken.pem")) {
            try SigningKeyFolder(url: url).load()
        }
    }

    @Test func loadersStartingTogetherOnAMissingFolderMakeOneKeyBetweenThem() async throws {
        // Missing parents too: creating them at the same moment is not an error either.
        let url = try temporaryKeysFolder().appendingPathComponent("state/latchkey/keys", isDirectory: true)
        let folder = SigningKeyFolder(url: url)
        let logger = self.logger
        let kids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<6 {
                group.addTask { try await KeyRing.load(folder: folder, algorithm: .es256, generateIfMissing: true, logger: logger).signingKid }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(kids.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".pem") }.count == 1)
    }

    /// A Kubernetes Secret volume rewrites every file on each update, so a key made by
    /// `tokens keygen` counts from the time its name starts with; other names from their file's time.
    @Test func aKeyIsDatedByItsNameWhenKeygenNamedIt() async throws {
        let url = try temporaryKeysFolder()
        let folder = SigningKeyFolder(url: url)
        let made = try folder.generate(.es256, now: Date(timeIntervalSince1970: 1_764_000_000.7))
        #expect(made.fileName.hasPrefix("20251124T160000-es256-"))
        let other = url.appendingPathComponent("mine.pem")
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: other)
        let touched = Date(timeIntervalSince1970: 1_700_000_000)
        for name in [made.fileName, "mine.pem"] {
            try FileManager.default.setAttributes([.modificationDate: touched], ofItemAtPath: url.appendingPathComponent(name).path)
        }
        var keys = try folder.load()
        #expect(keys.first { $0.fileName == made.fileName }?.createdAt == Date(timeIntervalSince1970: 1_764_000_000))
        #expect(keys.first { $0.fileName == "mine.pem" }?.createdAt == touched)
        // A file time within the name's second says more precisely when, and is kept.
        let precise = Date(timeIntervalSince1970: 1_764_000_000.25)
        try FileManager.default.setAttributes([.modificationDate: precise], ofItemAtPath: url.appendingPathComponent(made.fileName).path)
        keys = try folder.load()
        #expect(keys.first { $0.fileName == made.fileName }?.createdAt == precise)
        #expect(SigningKeyFolder.creationTime(named: "20251324T160000-x.pem") == nil)
        #expect(SigningKeyFolder.creationTime(named: "2025112AT160000-x.pem") == nil)
    }

    /// A Kubernetes Secret volume: mode 1777, but mounted read-only, so nobody can add a key.
    @Test func aFolderOnAReadOnlyMountIsAcceptedWhateverItsMode() async throws {
        let url = try temporaryKeysFolder()
        func mount(_ arguments: [String]) throws -> Int32 {
            let process = try Process.run(URL(fileURLWithPath: "/bin/mount"), arguments: arguments)
            process.waitUntilExit()
            return process.terminationStatus
        }
        try #require(try mount(["-t", "tmpfs", "-o", "rw,mode=1777", "tmpfs", url.path]) == 0, "mounting needs root")
        defer { _ = try? mount(["-o", "remount,rw", url.path]); _ = try? Process.run(URL(fileURLWithPath: "/bin/umount"), arguments: [url.path]).waitUntilExit() }
        let folder = SigningKeyFolder(url: url)
        try Data(P256.Signing.PrivateKey().pemRepresentation.utf8).write(to: url.appendingPathComponent("key.pem"))
        #expect(throws: SigningKeyError.self) { try folder.load() }
        #expect(try mount(["-o", "remount,ro", url.path]) == 0)
        try folder.checkPrivate()
        #expect(try folder.load().count == 1)
    }

    @Test func developmentGeneratesAKeyWithMode0600InAnEmptyFolder() async throws {
        let url = try temporaryKeysFolder()
        let ring = try await KeyRing.load(folder: SigningKeyFolder(url: url), algorithm: .es256, generateIfMissing: true, logger: self.logger)
        let files = try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0.hasSuffix(".pem") }
        #expect(files.count == 1)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.appendingPathComponent(files[0]).path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect(ring.jwks.keys.map(\.kid) == [ring.signingKid])
        #expect(ring.jwks.keys.first?.crv == "P-256")
    }

    /// A folder another user could write a key into is refused, naming it and why (issue 14).
    @Test func aKeyFolderOthersCanWriteIsRefused() throws {
        let url = try temporaryKeysFolder()
        let folder = SigningKeyFolder(url: url)
        try folder.generate(.es256)
        #expect(try folder.load().count == 1)
        for mode in [0o777, 0o775, 0o757, 0o1777] {
            #expect(chmod(url.path, mode_t(mode)) == 0)
            let error = #expect(throws: SigningKeyError.self) { try folder.load() }
            #expect(error?.description.contains("writable by group or others") == true, "\(String(describing: error))")
            #expect(throws: SigningKeyError.self) { try folder.generate(.es256) }
        }
        #expect(chmod(url.path, 0o750) == 0)
        #expect(try folder.load().count == 1)
        // Owned by another user (not root): refused whatever the mode.
        #expect(chown(url.path, 4242, 4242) == 0)
        let foreign = #expect(throws: SigningKeyError.self) { try folder.load() }
        #expect(foreign?.description.contains("owned by uid 4242") == true)
    }

    @Test func theDevelopmentKeyFolderIsPrivateToTheUser() {
        let folder = TokensConfiguration.developmentKeysDirectory.path
        #expect(!folder.hasPrefix(FileManager.default.temporaryDirectory.path))
        #expect(folder.hasSuffix("latchkey/development-signing-keys"))
    }

    @Test func productionRefusesToStartWithoutAKey() async throws {
        let url = try temporaryKeysFolder()
        var env = try tokensEnvironment(keys: url)
        env["ENVIRONMENT"] = "production"
        env["SERVICE_TOKEN"] = "a-production-service-token"
        env["JWT_ISSUER"] = "https://auth.example.com"
        env["JWT_AUDIENCE"] = "example-app"
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await TokensApp.make(EnvironmentReader(env), logger: self.logger)
        }
        #expect(error?.variable == "SIGNING_KEYS_DIR")
        #expect(try FileManager.default.contentsOfDirectory(atPath: url.path).isEmpty)
        env["JWT_AUDIENCE"] = nil
        #expect(throws: ConfigurationError.missing("JWT_AUDIENCE")) { try TokensConfiguration(EnvironmentReader(env)) }
        env["JWT_AUDIENCE"] = "example-app"
        env["SIGNING_ALG"] = "HS256"
        #expect((try? TokensConfiguration(EnvironmentReader(env))) == nil)
    }

    /// DESIGN.md §9.6: a reuse grace above 60 s stops tokens at start, naming the variable.
    @Test func aReuseGraceAboveAMinuteIsRefused() throws {
        var env = try tokensEnvironment(keys: try temporaryKeysFolder())
        env["REFRESH_REUSE_GRACE"] = "60"
        #expect(try TokensConfiguration(EnvironmentReader(env)).reuseGrace == .seconds(60))
        env["REFRESH_REUSE_GRACE"] = "61"
        let error = #expect(throws: ConfigurationError.self) { try TokensConfiguration(EnvironmentReader(env)) }
        #expect(error?.variable == "REFRESH_REUSE_GRACE")
    }

    @Test func keyRotationPublishesTheNewKeyAtOnceAndSignsWithItAfterTheActivationDelay() async throws {
        try await TokensHarness.run { tokens in
            let ring = tokens.instances[0].keyRing
            #expect(ring.activationDelay == .seconds(900), "the default SIGNING_KEY_ACTIVATION_DELAY")
            let oldKid = ring.signingKid
            let before = try await tokens.issue()
            #expect(KidHeader.kid(of: before.accessToken) == oldKid)
            // What `tokens keygen` does, then the periodic reload: the key is published at once
            // but the old key keeps signing until the new one is older than the delay.
            #expect(KeygenCommand.run(arguments: [], env: EnvironmentReader(["SIGNING_KEYS_DIR": tokens.keys.path])) == 0)
            await ring.reload(logger: self.logger)
            #expect(ring.signingKid == oldKid)
            let published = try await tokens.client.call(Tokens.jwks, Empty()).keys.compactMap(\.kid)
            #expect(published.count == 2 && published.last == oldKid)
            let early = try await tokens.issue()
            #expect(KidHeader.kid(of: early.accessToken) == oldKid)
            // A minute's margin either side: the key counts from the second its name gives, and
            // a loaded machine may take a while between the keygen and these lines.
            await ring.reload(logger: self.logger, now: Date().addingTimeInterval(900 - 60))
            #expect(ring.signingKid == oldKid)
            await ring.reload(logger: self.logger, now: Date().addingTimeInterval(900 + 60))
            let newKid = ring.signingKid
            #expect(newKid != oldKid && newKid == published.first)
            let after = try await tokens.refresh(before.refreshToken)
            #expect(KidHeader.kid(of: after.accessToken) == newKid)
            #expect(try await tokens.verify(before.accessToken).sessionID == before.sessionID)
            #expect(try await tokens.verify(after.accessToken).sessionID == before.sessionID)
            let jwks = try await tokens.client.call(Tokens.jwks, Empty())
            #expect(jwks.keys.map(\.kid) == [newKid, oldKid])
        }
    }

    @Test(arguments: ["RS256", "ES256", "EdDSA"])
    func anAccessTokenVerifiesWithJWTKitFromTheJWKSJSONAlone(_ algorithm: String) async throws {
        try await TokensHarness.run(environment: ["SIGNING_ALG": algorithm]) { tokens in
            let user = UUID()
            let pair = try await tokens.issue(user, admin: true)
            let jwks = try await tokens.client.call(Tokens.jwks, Empty())
            let json = String(decoding: try JSONEncoder().encode(jwks), as: UTF8.self)
            let keys = try await JWTKeyCollection().add(jwksJSON: json)
            let claims = try await keys.verify(pair.accessToken, as: ExternalClaims.self)
            #expect(claims.sub.value == user.uuidString.lowercased())
            #expect(claims.sid == pair.sessionID.uuidString.lowercased())
            #expect(claims.iss.value == "latchkey" && claims.aud.value == ["latchkey-app"])
            #expect(claims.adm == true)
            #expect(jwks.keys.first?.alg == algorithm)
            // A tampered token fails.
            var tampered = Array(pair.accessToken)
            tampered[tampered.count - 5] = tampered[tampered.count - 5] == "A" ? "B" : "A"
            await #expect(throws: (any Error).self) { try await keys.verify(String(tampered), as: ExternalClaims.self) }
        }
    }

    @Test func verifyRefusesForeignIssuerAudienceAndUnsignedTokens() async throws {
        try await TokensHarness.run { tokens in
            let pair = try await tokens.issue()
            let parts = pair.accessToken.split(separator: ".")
            let noneHeader = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT","kid":"\#(tokens.instances[0].keyRing.signingKid)"}"#.utf8))
            for token in ["", "a.b.c", "\(noneHeader).\(parts[1]).", "\(noneHeader).\(parts[1]).\(parts[2])"] {
                #expect(await tokens.errorCode { try await tokens.verify(token) } == .unauthorized)
            }
            // A token signed by the same keys for another audience, or by another issuer, is
            // refused; the service that issued it accepts it (so only the claim differs).
            for foreignSetting in [["JWT_AUDIENCE": "someone-else"], ["JWT_ISSUER": "https://issuer.example.org"]] {
                try await TokensHarness.run(keys: tokens.keys, environment: foreignSetting) { other in
                    let foreign = try await other.issue()
                    #expect(await tokens.errorCode { try await tokens.verify(foreign.accessToken) } == .unauthorized, "\(foreignSetting)")
                    #expect(try await other.verify(foreign.accessToken).sessionID == foreign.sessionID)
                }
            }
        }
    }
}

/// The claims as an outside verifier (the gateway) would declare them.
struct ExternalClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var sid: String
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    var jti: IDClaim
    var adm: Bool?

    func verify(using algorithm: some JWTAlgorithm) async throws {
        try self.exp.verifyNotExpired()
    }
}

/// Reads the `kid` of a token's header.
enum KidHeader {
    static func kid(of token: String) -> String? {
        JOSEHeader(token: token)?.kid
    }
}
