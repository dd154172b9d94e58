import AsyncHTTPClient
import Foundation
import NIOFoundationEssentialsCompat
import TestSupport
import Testing

/// Two gateways in front of the same backends: a user one gateway keeps for `me` and refresh
/// (`USER_CACHE_TTL`) is dropped as soon as the user changes through the other one, because
/// identity announces the change on `latchkey:users`.
@Suite("User cache across gateways", .timeLimit(.minutes(5)))
struct UserCacheAcrossGatewaysTests {
    @Test func aChangeThroughOneGatewayIsSeenThroughTheOther() async throws {
        try await Stack.with { stack in
            // An hour: only identity's announcement can make the second gateway read the user again.
            try await stack.withAnotherGateway(environment: ["USER_CACHE_TTL": "3600"]) { other, opsPort in
                let session = try await stack.signInApple()
                func providers(_ reply: Stack.Reply) -> [String]? {
                    (reply.json["providers"] ?? (reply.json["user"] as? [String: Any])?["providers"]) as? [String]
                }
                // The second gateway subscribes once it runs; until then it keeps nothing.
                try await waitUntil("the second gateway keeps users") {
                    let reply = try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken, gateway: other)
                    #expect(providers(reply) == ["apple"])
                    return try await Self.cacheHits(opsPort) > 0
                }

                let link = try await stack.request(
                    "POST", "/api/v1/auth/identities/google", body: ["id_token": try await stack.googleToken(subject: "g-\(UUID())")],
                    token: session.accessToken)
                #expect(link.status == 200)
                try await waitUntil("the link is seen through the other gateway") {
                    providers(try await stack.request("GET", "/api/v1/auth/me", token: session.accessToken, gateway: other))
                        == ["apple", "google"]
                }

                // Refresh through the other gateway answers with the kept user, then the changed one.
                let refreshed = try await stack.request(
                    "POST", "/api/v1/auth/refresh", body: ["refresh_token": session.refreshToken], gateway: other)
                #expect(refreshed.status == 200)
                #expect(providers(refreshed) == ["apple", "google"])
                let unlink = try await stack.request("DELETE", "/api/v1/auth/identities/google", token: session.accessToken)
                #expect(unlink.status == 200)
                // The announcement reaches the other gateway on its own connection to Redis: wait
                // for it rather than race it, refreshing along the chain.
                var current = try Session(refreshed.json)
                try await waitUntil("the unlink is seen in a refresh through the other gateway") {
                    let again = try await stack.request(
                        "POST", "/api/v1/auth/refresh", body: ["refresh_token": current.refreshToken], gateway: other)
                    #expect(again.status == 200, "\(again.json)")
                    current = try Session(again.json)
                    return providers(again) == ["apple"]
                }
            }
        }
    }

    /// `gateway_user_cache_lookups_total{result="hit"}` of the gateway on `opsPort`.
    static func cacheHits(_ opsPort: Int) async throws -> Double {
        let response = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(opsPort)/metrics"), timeout: .seconds(10))
        let text = String(buffer: try await response.body.collect(upTo: 4 << 20))
        return text.split(separator: "\n").filter { $0.hasPrefix("gateway_user_cache_lookups_total{result=\"hit\"}") }
            .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }.reduce(0, +)
    }
}
