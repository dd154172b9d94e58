import TextCoding
import Crypto
import Foundation
import JWTKit
import Logging
import ServiceKit
import ServiceProtocol
import Synchronization
import TestSupport
import Testing
import _CryptoExtras

@testable import Gateway

/// The gateway's own checks of an access token (`AccessTokenVerifier` with `SigningKeyCache`),
/// against a stand-in `tokens` that publishes a JWKS the test controls, over the real RPC
/// protocol: signature, algorithm, issuer, audience, expiry with and without leeway, and how
/// often an unknown `kid` may make it fetch the keys again.
@Suite struct AccessTokenVerifierTests {
    static let issuer = "latchkey-test"
    static let audience = "latchkey-test-app"

    @Test func aTokenFromAPublishedKeyIsAccepted() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 0)
            let claims = keys.claims()
            let token = try await keys.sign(claims)
            let verified = try await verifier.verify(token, logger: keys.logger)
            #expect(verified.caller.userID.uuidString.lowercased() == claims.sub)
            #expect(verified.caller.sessionID.uuidString.lowercased() == claims.sid)
            // In milliseconds, compared with a user's not-before.
            #expect(verified.issuedAt == Int64(claims.iat) * 1000)
        }
    }

    @Test func anotherIssuerOrAudienceIsRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            var claims = keys.claims()
            claims.iss = "https://issuer.example.org"
            await expectUnauthorized { try await verifier.verify(try await keys.sign(claims), logger: keys.logger) }
            claims = keys.claims()
            claims.aud = "someone-else"
            await expectUnauthorized { try await verifier.verify(try await keys.sign(claims), logger: keys.logger) }
        }
    }

    @Test func expiryIsCheckedWithTheConfiguredLeeway() async throws {
        try await PublishedKeys.run { keys in
            let now = Int(Date().timeIntervalSince1970)
            var claims = keys.claims()
            claims.iat = now - 1000
            claims.exp = now - 30
            let recentlyExpired = try await keys.sign(claims)
            claims.exp = now - 120
            let longExpired = try await keys.sign(claims)
            // Without leeway both are refused (`token_expired`: refresh); with a minute, only the older one.
            await expectUnauthorized(.tokenExpired) { try await keys.verifier(leeway: 0).verify(recentlyExpired, logger: keys.logger) }
            let lenient = keys.verifier(leeway: 60)
            _ = try await lenient.verify(recentlyExpired, logger: keys.logger)
            await expectUnauthorized(.tokenExpired) { try await lenient.verify(longExpired, logger: keys.logger) }
            // Issued in the future beyond the leeway: refused too.
            claims = keys.claims()
            claims.iat = now + 600
            claims.exp = now + 1500
            await expectUnauthorized { try await lenient.verify(try await keys.sign(claims), logger: keys.logger) }
        }
    }

    @Test func unsignedAndHMACTokensAreRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            let payload = try JSONEncoder().encode(keys.claims())
            // alg "none", with and without a signature part.
            let none = Self.compact(header: #"{"alg":"none","typ":"JWT","kid":"\#(keys.kid)"}"#, payload: payload)
            await expectUnauthorized { try await verifier.verify(none + ".", logger: keys.logger) }
            await expectUnauthorized { try await verifier.verify(none + ".c2lnbmF0dXJl", logger: keys.logger) }
            // HS256 keyed with the public key (the RS/HS confusion): in its PEM and DER forms.
            let hs256 = Self.compact(header: #"{"alg":"HS256","typ":"JWT","kid":"\#(keys.kid)"}"#, payload: payload)
            for secret in [Data(keys.publicKey.pemRepresentation.utf8), keys.publicKey.derRepresentation] {
                let mac = HMAC<SHA256>.authenticationCode(for: Data(hs256.utf8), using: SymmetricKey(data: secret))
                await expectUnauthorized { try await verifier.verify(hs256 + "." + Base64URL.encode(Data(mac)), logger: keys.logger) }
            }
        }
    }

    @Test func aSignatureFromAnUnpublishedKeyIsRefused() async throws {
        try await PublishedKeys.run { keys in
            let verifier = keys.verifier(leeway: 60)
            let stranger = try Insecure.RSA.PrivateKey(pem: try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation)
            // Under the published kid (so the published key checks it) and under a kid of its own.
            for kid in [keys.kid, "unpublished"] {
                let signer = await JWTKeyCollection().add(rsa: stranger, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
                let token = try await signer.sign(keys.claims(), kid: JWKIdentifier(string: kid))
                await expectUnauthorized { try await verifier.verify(token, logger: keys.logger) }
            }
        }
    }

    @Test func unknownKidsRefetchTheKeysAtMostOncePerInterval() async throws {
        try await PublishedKeys.run { keys in
            // An hour between refetches: a flood of made-up kids costs no fetch at all.
            let strict = keys.verifier(leeway: 60, refetchInterval: .seconds(3600))
            _ = try await strict.verify(try await keys.sign(keys.claims()), logger: keys.logger)
            #expect(keys.fetches == 1)
            let unknown = try await keys.sign(keys.claims(), kid: "made-up")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<200 {
                    group.addTask { await expectUnauthorized { try await strict.verify(unknown, logger: keys.logger) } }
                }
                try await group.waitForAll()
            }
            #expect(keys.fetches == 1)

            // A key published after the first fetch is learned from the first token that names it.
            let eager = keys.verifier(leeway: 60, refetchInterval: .zero)
            _ = try await eager.verify(try await keys.sign(keys.claims()), logger: keys.logger)
            #expect(keys.fetches == 2)
            let newKid = try keys.rotate()
            let fresh = try await keys.sign(keys.claims())
            _ = try await eager.verify(fresh, logger: keys.logger)
            #expect(keys.fetches == 3)
            // The strict one still refuses it: its interval has not passed.
            await expectUnauthorized { try await strict.verify(fresh, logger: keys.logger) }
            #expect(keys.fetches == 3)
            #expect(newKid != "made-up")
        }
    }

    static func compact(header: String, payload: Data) -> String {
        Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(payload)
    }
}

/// Expects `body` to throw the public 401 `unauthorized`.
func expectUnauthorized(
    _ code: ErrorCode = .unauthorized, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> some Any
) async {
    do {
        _ = try await body()
        Issue.record("the token was accepted", sourceLocation: sourceLocation)
    } catch let error as APIError {
        #expect(error.status == .unauthorized, sourceLocation: sourceLocation)
        #expect(error.code == code, sourceLocation: sourceLocation)
    } catch {
        Issue.record("expected 401 \(code), got \(error)", sourceLocation: sourceLocation)
    }
}

/// The RSA keys the stand-in `tokens` publishes, newest last, and how often they were fetched.
final class KeyPublisher: Sendable {
    private let state: Mutex<(keys: [(kid: String, key: _RSA.Signing.PrivateKey)], fetches: Int)>

    init() throws {
        self.state = Mutex(([(kid: "key-1", key: try _RSA.Signing.PrivateKey(keySize: .bits2048))], 0))
    }

    var fetches: Int { self.state.withLock { $0.fetches } }
    var newest: (kid: String, key: _RSA.Signing.PrivateKey) { self.state.withLock { $0.keys[$0.keys.count - 1] } }

    /// The document `tokens.jwks` answers; counts the fetch.
    func jwks() throws -> PublishedJWKS {
        let keys = self.state.withLock { state in
            state.fetches += 1
            return state.keys
        }
        return PublishedJWKS(
            keys: try keys.map { kid, key in
                let jwtKey = try Insecure.RSA.PublicKey(pem: key.publicKey.pemRepresentation)
                let (modulus, exponent) = try jwtKey.getKeyPrimitives()
                return PublishedJWKS.Key(kid: kid, n: Base64URL.encode(modulus), e: Base64URL.encode(exponent))
            })
    }

    /// Publishes a new key next to the old ones; returns its kid.
    func rotate() throws -> String {
        let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        return self.state.withLock { state in
            let kid = "key-\(state.keys.count + 1)"
            state.keys.append((kid, key))
            return kid
        }
    }
}

/// A stand-in for `tokens`: an RPC server answering `tokens.jwks` with the keys of a
/// `KeyPublisher`, and a client of it for the gateway's key cache.
struct PublishedKeys: Sendable {
    let logger = Logger(label: "access-token-tests")
    let client: RPCClient
    let publisher: KeyPublisher

    var fetches: Int { self.publisher.fetches }
    /// The newest key's id, which `sign` uses.
    var kid: String { self.publisher.newest.kid }
    var publicKey: _RSA.Signing.PublicKey { self.publisher.newest.key.publicKey }

    static func run(_ body: (PublishedKeys) async throws -> Void) async throws {
        let publisher = try KeyPublisher()
        var router = RPCRouter()
        router.register("tokens.jwks") { (_: Empty, _) -> PublishedJWKS in try publisher.jwks() }
        let token = "access-token-tests-\(UUID().uuidString)"
        let server = try await RPCServer.bind(
            configuration: .init(serviceName: "tokens", serviceToken: token), router: router, logger: Logger(label: "tokens-stand-in"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            defer { group.cancelAll() }
            var configuration = RPCClient.Configuration(
                endpoints: [RPCEndpoint(host: "127.0.0.1", port: server.port)], serviceName: "tokens",
                callerName: "gateway-tests", serviceToken: token)
            configuration.callTimeout = .seconds(90)
            try await RPCClient.withClient(configuration: configuration, logger: Logger(label: "gateway-tests")) { client in
                try await body(PublishedKeys(client: client, publisher: publisher))
            }
        }
    }

    /// A verifier as the gateway builds one, with a key cache of its own.
    func verifier(leeway: Int, refetchInterval: Duration = .seconds(1)) -> AccessTokenVerifier {
        AccessTokenVerifier(
            keys: SigningKeyCache(tokens: self.client, refetchInterval: refetchInterval, logger: self.logger),
            issuer: AccessTokenVerifierTests.issuer, audience: AccessTokenVerifierTests.audience, leeway: leeway)
    }

    func claims() -> TestAccessClaims {
        let now = Int(Date().timeIntervalSince1970)
        return TestAccessClaims(
            iss: AccessTokenVerifierTests.issuer, aud: AccessTokenVerifierTests.audience, sub: UUID().uuidString.lowercased(),
            sid: UUID().uuidString.lowercased(), iat: now, exp: now + 900, jti: UUID().uuidString)
    }

    /// Signs with the newest key, under its kid unless another is named.
    func sign(_ claims: TestAccessClaims, kid: String? = nil) async throws -> String {
        let newest = self.publisher.newest
        let kid = JWKIdentifier(string: kid ?? newest.kid)
        let keys = await JWTKeyCollection().add(
            rsa: try Insecure.RSA.PrivateKey(pem: newest.key.pemRepresentation), digestAlgorithm: .sha256, kid: kid)
        return try await keys.sign(claims, kid: kid)
    }

    /// `header` and `claims` as they are (JSON text), signed RS256 with the newest key: what a
    /// holder of the signing key could send, so the checks behind the signature are reached.
    func signRaw(header: String, claims: String) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature = try self.publisher.newest.key.signature(for: Data(input.utf8), padding: .insecurePKCS1v1_5)
        return input + "." + Base64URL.encode(signature.rawRepresentation)
    }

    func rotate() throws -> String { try self.publisher.rotate() }
}

/// A JWKS document of RSA keys, as `tokens.jwks` answers it.
struct PublishedJWKS: Codable, Sendable {
    struct Key: Codable, Sendable {
        var kty = "RSA"
        var alg = "RS256"
        var use = "sig"
        var kid: String
        var n: String
        var e: String
    }

    var keys: [Key]
}
