import Foundation
import Testing

/// What the gateway accepts as a body and as stored text: JSON only (415 otherwise, on every
/// route that takes a body), and no NUL or invalid Unicode in any text (400, never 500).
@Suite("End to end: request rules", .timeLimit(.minutes(5)))
struct RequestRulesTests {
    func expectError(_ reply: Stack.Reply, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(reply.status == status, "\(String(buffer: reply.body))", sourceLocation: sourceLocation)
        #expect(reply.errorCode == code, sourceLocation: sourceLocation)
    }

    @Test func aBodyThatIsNotDeclaredJSONIsRefusedWith415() async throws {
        try await Stack.with { stack in
            let session = try await stack.signInApple()
            let token = session.accessToken
            let appleBody = #"{"identity_token":"\#(try await stack.appleToken(subject: "apple-\(UUID().uuidString)"))"}"#
            for contentType in ["text/plain", "application/x-www-form-urlencoded", "", "json", "application/jsonx"] {
                let reply = try await stack.request("POST", "/api/v1/auth/apple", body: appleBody, headers: ["Content-Type": contentType])
                expectError(reply, 415, "unsupported_media_type")
            }
            // Every route that reads a body, public, authenticated and admin.
            let text = ["Content-Type": "text/plain"]
            let routes: [(String, String, String?)] = [
                ("POST", "/api/v1/auth/google", nil), ("POST", "/api/v1/auth/refresh", nil),
                ("POST", "/api/v1/auth/apple/notifications", nil), ("POST", "/api/v1/auth/logout", token),
                ("POST", "/api/v1/auth/identities/google", token), ("PUT", "/api/v1/favorites/a", token),
                ("POST", "/api/v1/read/batch", token), ("POST", "/api/v1/state/query", token), ("POST", "/admin/login", nil),
            ]
            for (method, path, bearer) in routes {
                expectError(try await stack.request(method, path, body: "{}", token: bearer, headers: text), 415, "unsupported_media_type")
            }
            // JSON media types with parameters or a +json suffix are JSON; an empty body needs none.
            let charset = try await stack.request(
                "PUT", "/api/v1/favorites/a", body: #"{"nickname":"n"}"#, token: token,
                headers: ["Content-Type": "Application/JSON; charset=utf-8"])
            #expect(charset.status == 200)
            let suffix = try await stack.request(
                "PUT", "/api/v1/favorites/b", body: #"{"position":1}"#, token: token, headers: ["Content-Type": "application/merge-patch+json"])
            #expect(suffix.status == 200)
            #expect(try await stack.request("PUT", "/api/v1/favorites/c", token: token).status == 200)
            #expect(try await stack.request("POST", "/api/v1/auth/logout", token: token).status == 204)
        }
    }

    @Test func textWithNULOrInvalidUnicodeIsABadRequest() async throws {
        try await Stack.with { stack in
            let session = try await stack.signInApple()
            let token = session.accessToken
            // The nickname that used to reach Postgres and come back as 500.
            expectError(
                try await stack.request("PUT", "/api/v1/favorites/a", body: #"{"nickname":"a\u0000b"}"#, token: token), 400, "bad_request")
            expectError(
                try await stack.request("PUT", "/api/v1/favorites/a", body: #"{"nickname":"\ud800"}"#, token: token), 400, "bad_request")
            var invalid = Data(#"{"nickname":""#.utf8)
            invalid.append(contentsOf: [0x61, 0xFF, 0xFE])
            invalid.append(contentsOf: Data(#""}"#.utf8))
            expectError(try await stack.request("PUT", "/api/v1/favorites/a", body: invalid, token: token), 400, "bad_request")
            // Full name, email and device name at sign-in.
            for extra in [#""full_name":"Ada\u0000""#, #""full_name":{"given_name":"A\u0000"}"#, #""email":"a\u0000@example.com""#, #""device_name":"pho\u0000ne""#] {
                let identityToken = try await stack.appleToken(subject: "apple-\(UUID().uuidString)")
                let body = #"{"identity_token":"\#(identityToken)",\#(extra)}"#
                expectError(try await stack.request("POST", "/api/v1/auth/apple", body: body), 400, "bad_request")
            }
            // Admin search.
            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword])
            let cookie = String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])
            expectError(try await stack.request("GET", "/admin/api/users?query=a%00b", headers: ["Cookie": cookie]), 400, "bad_request")
            #expect(try await stack.request("GET", "/admin/api/users?query=%E2%9C%93", headers: ["Cookie": cookie]).status == 200)
            // Nothing was stored: the favorite has no nickname.
            let list = try await stack.request("GET", "/api/v1/favorites", token: token)
            #expect((list.json["items"] as? [Any])?.isEmpty == true)
        }
    }
}
