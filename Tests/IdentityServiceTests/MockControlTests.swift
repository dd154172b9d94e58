import IdentityAPI
import Foundation
import MockIdentityProvider
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The mock's `/mock/...` routes, which the local stack and other processes use.
@Suite struct MockControlTests {
    func post(_ url: String, json: [String: Any]) async throws -> (Int, [String: Any]) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        let object = (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, object)
    }

    @Test func tokensAreMintedAndKeysRotatedOverHTTP() async throws {
        try await MockIdentityProviderServer.withRunningMock { mock, endpoints in
            let (status, body) = try await post(
                endpoints.baseURL + "/mock/apple/identity-token", json: ["sub": "s1", "aud": "com.example", "nonce": "n"])
            #expect(status == 200)
            let token = try #require(body["token"] as? String)
            #expect(token.split(separator: ".").count == 3)
            let before = await mock.publishedKeyIDs(.apple)
            let (rotated, kidBody) = try await post(endpoints.baseURL + "/mock/apple/rotate", json: [:])
            #expect(rotated == 200)
            let after = await mock.publishedKeyIDs(.apple)
            #expect(after == [try #require(kidBody["kid"] as? String)] && after != before)
            let (accessStatus, access) = try await post(
                endpoints.baseURL + "/mock/google/access-token", json: ["sub": "g1", "aud": "client"])
            #expect(accessStatus == 200)
            let accessToken = try #require(access["access_token"] as? String)
            let info = try await URLSession.shared.data(
                from: URL(string: endpoints.googleTokenInfo + "?access_token=" + accessToken)!)
            let tokenInfo = try #require(try JSONSerialization.jsonObject(with: info.0) as? [String: Any])
            #expect(tokenInfo["aud"] as? String == "client" && tokenInfo["sub"] as? String == "g1")
        }
    }
}
