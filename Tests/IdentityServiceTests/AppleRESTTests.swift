import Crypto
import IdentityAPI
import Foundation
import IdentityService
import JWTKit
import MockIdentityProvider
import Postgres
import TestSupport
import Testing

/// Sign in with Apple REST against the mock: code exchange, sealed storage, revocation.
@Suite struct AppleRESTTests {
    static let teamID = "TEAM123456"
    static let keyID = "KEY7654321"

    /// Runs `body` with an identity service that has Apple REST on: a fresh `.p8` key on disk
    /// and a database of the test's own, both removed afterwards. The database is the test's
    /// own because the Apple revocation outbox is a table that every identity instance works
    /// off, so instances of tests running in parallel must not share it.
    static func withAppleREST<T: Sendable>(
        _ body: (IdentityHarness, P256.Signing.PrivateKey) async throws -> T
    ) async throws -> T {
        let base = try #require(ProcessInfo.processInfo.environment["DATABASE_URL"], "DATABASE_URL is not set")
        let database = "identity_apple_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await Self.administer(base, "CREATE DATABASE \(database)")
        let key = P256.Signing.PrivateKey()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("AuthKey_\(UUID().uuidString).p8").path
        var components = try #require(URLComponents(string: base))
        components.path = "/" + database
        let environment = [
            "DATABASE_URL": try #require(components.string),
            "APPLE_TEAM_ID": teamID, "APPLE_KEY_ID": keyID, "APPLE_PRIVATE_KEY_PATH": path,
            "APPLE_TOKEN_ENCRYPTION_KEY": Data((0..<32).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(),
        ]
        let result: Result<T, any Error>
        do {
            try key.pemRepresentation.write(toFile: path, atomically: true, encoding: .utf8)
            result = .success(try await IdentityHarness.run(environment: environment) { harness in try await body(harness, key) })
        } catch {
            result = .failure(error)
        }
        try? FileManager.default.removeItem(atPath: path)
        try await Self.administer(base, "DROP DATABASE \(database) WITH (FORCE)")
        return try result.get()
    }

    /// Runs `statement` (one that cannot run in a transaction) on the database at `url`.
    private static func administer(_ url: String, _ statement: String) async throws {
        try await withTestDatabase(poolSize: 1, url: url) { try await $0.execute(statement) }
    }

    struct ClientSecretClaims: JWTPayload {
        var iss: IssuerClaim
        var sub: SubjectClaim
        var aud: AudienceClaim
        var iat: IssuedAtClaim
        var exp: ExpirationClaim
        func verify(using _: some JWTAlgorithm) throws { try self.exp.verifyNotExpired() }
    }

    @Test func aSignInWithACodeExchangesItWithAnES256ClientSecret() async throws {
        try await Self.withAppleREST { harness, key in
            _ = try await harness.signInAppleWithCode(subject: uniqueSubject())
            let exchange = try #require(await harness.mock.callLog.appleTokenExchanges.first)
            #expect(exchange.clientID == IdentityHarness.appleAudience)
            #expect(exchange.grantType == "authorization_code")
            let keys = await JWTKeyCollection().add(
                ecdsa: try ES256PublicKey(pem: key.publicKey.pemRepresentation), kid: JWKIdentifier(string: Self.keyID))
            let claims = try await keys.verify(exchange.clientSecret, as: ClientSecretClaims.self)
            #expect(claims.iss.value == Self.teamID)
            #expect(claims.sub.value == IdentityHarness.appleAudience)
            #expect(claims.aud.value == ["https://appleid.apple.com"])
            let header = try DefaultJWTParser().parse([UInt8](exchange.clientSecret.utf8), as: ClientSecretClaims.self).header
            #expect(header.kid == Self.keyID && header.alg == "ES256")
        }
    }

    @Test func theRefreshTokenIsStoredEncrypted() async throws {
        try await Self.withAppleREST { harness, _ in
            let subject = uniqueSubject()
            _ = try await harness.signInAppleWithCode(subject: subject)
            let refreshToken = try #require(await harness.mock.callLog.appleTokenExchanges.first?.issuedRefreshToken)
            let rows = try await harness.postgres.query(
                "SELECT apple_refresh_token FROM identity.identities WHERE provider = 'apple' AND subject = $1", [.text(subject)])
            let stored = try #require(try rows.first?.decode("apple_refresh_token", as: [UInt8]?.self))
            #expect(!stored.isEmpty)
            #expect(!Data(stored).contains(Data(refreshToken.utf8)))
        }
    }

    /// A code from someone else's sign-in, sent along with one's own identity token: Apple
    /// exchanges it, but its id token names the other person, so the refresh token is dropped.
    @Test func aCodeIssuedToAnotherSignInIsNotKept() async throws {
        try await Self.withAppleREST { harness, _ in
            let subject = uniqueSubject()
            let result = try await harness.signInAppleWithCode(subject: subject, codeSubject: uniqueSubject())
            #expect(result.isNewUser)
            let exchange = try #require(await harness.mock.callLog.appleTokenExchanges.first)
            #expect(exchange.issuedRefreshToken != nil, "Apple did exchange the code")
            let rows = try await harness.postgres.query(
                "SELECT apple_refresh_token FROM identity.identities WHERE provider = 'apple' AND subject = $1", [.text(subject)])
            #expect(rows.count == 1)
            #expect(try rows.first?.decode("apple_refresh_token", as: [UInt8]?.self) == nil)
            // The same sign-in with its own code keeps it.
            _ = try await harness.signInAppleWithCode(subject: subject)
            let kept = try await harness.postgres.query(
                "SELECT apple_refresh_token FROM identity.identities WHERE provider = 'apple' AND subject = $1", [.text(subject)])
            #expect(try kept.first?.decode("apple_refresh_token", as: [UInt8]?.self) != nil)
        }
    }

    @Test func aRefusedCodeDoesNotFailTheSignIn() async throws {
        try await Self.withAppleREST { harness, _ in
            let result = try await harness.signInApple(subject: uniqueSubject(), code: "invalid-code")
            #expect(result.isNewUser)
        }
    }

    @Test func deletingAUserRevokesItsAppleAuthorization() async throws {
        try await Self.withAppleREST { harness, _ in
            let user = try await harness.signInAppleWithCode(subject: uniqueSubject()).user
            let refreshToken = try #require(await harness.mock.callLog.appleTokenExchanges.first?.issuedRefreshToken)
            _ = try await harness.client.call(Identity.deleteUser, DeleteUserParams(userID: user.id))
            let revocation = try await Self.waitForRevocation(harness) { $0.token == refreshToken && $0.succeeded }
            #expect(revocation.clientID == IdentityHarness.appleAudience)
            #expect(revocation.tokenTypeHint == "refresh_token")
        }
    }

    @Test func aFailedRevocationIsRetriedAndNeverBlocksTheDeletion() async throws {
        try await Self.withAppleREST { harness, _ in
            let user = try await harness.signInAppleWithCode(subject: uniqueSubject()).user
            let refreshToken = try #require(await harness.mock.callLog.appleTokenExchanges.first?.issuedRefreshToken)
            await harness.mock.failNextRevocations(1)
            let deleted = try await harness.client.call(
                Identity.deleteUser, DeleteUserParams(userID: user.id))
            #expect(deleted.deleted)
            await expectRPCError(.notFound) { _ = try await harness.getUser(user.id) }
            _ = try await Self.waitForRevocation(harness) { $0.token == refreshToken && $0.succeeded }
            let attempts = await harness.mock.callLog.appleRevocations.filter { $0.token == refreshToken }
            #expect(attempts.map(\.succeeded) == [false, true])
        }
    }

    @Test func unlinkingAppleRevokesItsAuthorization() async throws {
        try await Self.withAppleREST { harness, _ in
            let email = uniqueEmail()
            let user = try await harness.signInAppleWithCode(subject: uniqueSubject(), email: email).user
            _ = try await harness.signInGoogle(subject: uniqueSubject(), email: email)
            let refreshToken = try #require(await harness.mock.callLog.appleTokenExchanges.first?.issuedRefreshToken)
            _ = try await harness.client.call(
                Identity.unlink, UnlinkParams(userID: user.id, provider: .apple))
            _ = try await Self.waitForRevocation(harness) { $0.token == refreshToken && $0.succeeded }
        }
    }

    /// Polls the mock's log (revocation runs in the background) until a call matches.
    static func waitForRevocation(
        _ harness: IdentityHarness, matching predicate: (AppleRevokeCall) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> AppleRevokeCall {
        var found: AppleRevokeCall?
        try await waitUntil("a matching Apple revocation", interval: .milliseconds(50), sourceLocation: sourceLocation) {
            found = await harness.mock.callLog.appleRevocations.first(where: predicate)
            return found != nil
        }
        return try #require(found, sourceLocation: sourceLocation)
    }
}
