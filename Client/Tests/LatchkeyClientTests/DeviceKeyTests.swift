import Foundation
import Testing

@testable import LatchkeyClient

/// The client binds its sessions by itself (DPoP): a proof by its key on the sign-in, the
/// refresh and, once the gateway says the session is bound, with `Authorization: DPoP` on
/// every request, a new proof for every attempt.
@Suite struct DeviceKeyTests {
    let clock = TestClock()

    /// A gateway whose sessions are bound; `/api/v1/favorites` fails once with a 503.
    func gateway() -> StubTransport {
        let clock = self.clock
        let failed = Locked(false)
        return StubTransport { request in
            switch request.url.path {
            case "/api/v1/auth/apple":
                return Self.bound(Reply.tokens(access: "access-1", refresh: "refresh-1", now: clock.now, isNewUser: true))
            case "/api/v1/auth/refresh":
                return Self.bound(Reply.tokens(access: "access-2", refresh: "refresh-2", now: clock.now))
            case "/api/v1/favorites":
                if !failed.withLock({ let was = $0; $0 = true; return was }) { return Reply.json(503, ["error": ["code": "service_unavailable"]]) }
                return Reply.json(200, ["items": [], "next_cursor": NSNull()])
            default:
                return Reply.noContent
            }
        }
    }

    static func bound(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        var json = (try? JSONSerialization.jsonObject(with: response.body) as? [String: Any]) ?? [:]
        json["token_type"] = "DPoP"
        response.body = (try? JSONSerialization.data(withJSONObject: json)) ?? response.body
        return response
    }

    /// A proof's header and claims, unverified.
    static func parts(_ proof: String?) throws -> (header: [String: Any], claims: [String: Any], signature: Data) {
        let segments = try #require(proof).split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        try #require(segments.count == 3)
        func decode(_ text: String) throws -> Data {
            var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while base64.count % 4 != 0 { base64 += "=" }
            return try #require(Data(base64Encoded: base64))
        }
        let header = try #require(try JSONSerialization.jsonObject(with: decode(segments[0])) as? [String: Any])
        let claims = try #require(try JSONSerialization.jsonObject(with: decode(segments[1])) as? [String: Any])
        return (header, claims, try decode(segments[2]))
    }

    @Test func signInRefreshAndRequestsCarryProofsByOneKey() async throws {
        let transport = self.gateway()
        let store = InMemoryTokenStore()
        let client = makeClient(transport, clock: self.clock, store: store)
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(try await store.load()?.isBound == true)

        let signIn = try Self.parts(transport.requests("POST", "/api/v1/auth/apple").first?.headers["DPoP"])
        #expect(signIn.header["typ"] as? String == "dpop+jwt")
        #expect(signIn.header["alg"] as? String == "ES256")
        let jwk = try #require(signIn.header["jwk"] as? [String: String])
        #expect(jwk["kty"] == "EC" && jwk["crv"] == "P-256" && jwk["d"] == nil)
        #expect(jwk["x"]?.count == 43 && jwk["y"]?.count == 43)
        #expect(signIn.signature.count == 64)
        #expect(signIn.claims["htm"] as? String == "POST")
        #expect(signIn.claims["htu"] as? String == "https://gateway.test/api/v1/auth/apple")
        #expect(signIn.claims["ath"] == nil)
        #expect(signIn.claims["iat"] as? Int == Int(Date().timeIntervalSince1970) || signIn.claims["iat"] as? Int == Int(Date().timeIntervalSince1970) - 1)

        // A request retried after a 503: each attempt its own proof, with the token's hash.
        _ = try await client.favoritesPage()
        let attempts = transport.requests("GET", "/api/v1/favorites")
        #expect(attempts.count == 2)
        #expect(attempts.allSatisfy { $0.headers["Authorization"] == "DPoP access-1" })
        let proofs = try attempts.map { try Self.parts($0.headers["DPoP"]) }
        #expect(Set(proofs.map { $0.claims["jti"] as? String }).count == 2)
        #expect(proofs.allSatisfy { $0.claims["htu"] as? String == "https://gateway.test/api/v1/favorites" })
        #expect(proofs.allSatisfy { $0.claims["ath"] as? String == Base64URL.encode(SHA256.hash(Array("access-1".utf8))) })
        #expect(proofs.allSatisfy { $0.header["jwk"] as? [String: String] == jwk })

        // The refresh proves the same key.
        _ = try await client.refreshTokens()
        let refresh = try Self.parts(transport.requests("POST", "/api/v1/auth/refresh").first?.headers["DPoP"])
        #expect(refresh.header["jwk"] as? [String: String] == jwk)
        #expect(refresh.claims["ath"] == nil)
    }

    /// A gateway whose clock is ten minutes ahead of the device's refuses a proof made on the
    /// device's clock; the client takes the gateway's clock from its `Date` and tries once more.
    @Test func aProofRefusedForTheDevicesClockIsMadeAgainOnTheGatewaysClock() async throws {
        let clock = self.clock
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let gatewayNow = Date().addingTimeInterval(600)
        let date = formatter.string(from: gatewayNow)
        let transport = StubTransport { request in
            let claims = try Self.parts(request.headers["DPoP"]).claims
            let iat = TimeInterval(claims["iat"] as? Int ?? 0)
            guard abs(iat - gatewayNow.timeIntervalSince1970) <= 30 else {
                var refused = Reply.json(401, ["error": ["code": "invalid_dpop_proof", "message": "stale", "request_id": "r"]])
                refused.headers["Date"] = date
                return refused
            }
            var signedIn = Self.bound(Reply.tokens(access: "access-1", refresh: "refresh-1", now: clock.now, isNewUser: true))
            signedIn.headers["Date"] = date
            return signedIn
        }
        let client = makeClient(transport, clock: self.clock)
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        let attempts = transport.requests("POST", "/api/v1/auth/apple")
        #expect(attempts.count == 2)
        #expect(Set(try attempts.map { try Self.parts($0.headers["DPoP"]).claims["jti"] as? String }).count == 2)
    }

    @Test func withoutAKeyTheClientSendsNoProofs() async throws {
        let transport = self.gateway()
        let client = LatchkeyClient(
            configuration: .init(
                baseURL: URL(string: "https://gateway.test")!, tokenStore: InMemoryTokenStore(), transport: transport, deviceKey: .none,
                now: { self.clock.now }, uptime: { self.clock.uptime }))
        try await client.signIn(with: AppleCredential(identityToken: "apple-jwt"))
        #expect(transport.requests.allSatisfy { $0.headers["DPoP"] == nil })
    }

    #if !canImport(CryptoKit)
    @Test func theSoftwareKeyIsKeptInA0600FileAndReadBack() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-key-\(UUID().uuidString)/tokens.json.dpop-key")
        let made = try SoftwareDeviceKey.stored(in: file)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try SoftwareDeviceKey.stored(in: file).publicKeyCoordinates == made.publicKeyCoordinates)
        #expect(try made.signature(for: Data("x".utf8)).count == 64)
        // A second maker that finds the name taken reads the first's key.
        let other = try SoftwareDeviceKey()
        #expect(try PrivateFile.create(try other.pkcs8(), at: file) == false)
        #expect(try SoftwareDeviceKey.stored(in: file).publicKeyCoordinates == made.publicKeyCoordinates)
        #expect(throws: DeviceKeyError.self) { try SoftwareDeviceKey(pkcs8: Data("not a key".utf8)) }
    }
    #endif
}
