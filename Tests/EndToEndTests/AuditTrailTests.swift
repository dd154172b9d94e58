import Foundation
import Testing

/// The audit trail (DESIGN.md section 9.3) through the public and admin APIs: every event type
/// is made by the call that makes it and read back with its user, session, IP, user agent,
/// request id and details; never a token; a user sees their own trail; a deletion leaves only
/// its own record, without personal data.
@Suite("End to end: audit trail", .timeLimit(.minutes(5)))
struct AuditTrailTests {
    static let userAgent = "AuditTrailTests/1.0 (iPhone; iOS 19)"

    @Test func everyEventTypeIsRecordedAndReadBack() async throws {
        try await Stack.with(tokensEnvironment: ["REFRESH_REUSE_GRACE": "0"]) { stack in
            let device = ["User-Agent": Self.userAgent]
            let wrong = try await stack.request("POST", "/admin/login", body: ["password": "guess"], headers: device)
            #expect(wrong.status == 401)
            let login = try await stack.request("POST", "/admin/login", body: ["password": Stack.adminPassword], headers: device)
            let admin = ["Cookie": String(try #require(login.header("Set-Cookie")).split(separator: ";")[0])]

            // A guest, upgraded by an Apple sign-in that carries its token.
            let guestReply = try await stack.request("POST", "/api/v1/auth/guest", body: ["device_name": "Guest phone"], headers: device)
            let guest = try Session(guestReply.json)
            let appleSubject = "apple-\(UUID().uuidString)"
            let upgrade = try await stack.request(
                "POST", "/api/v1/auth/apple",
                body: ["identity_token": try await stack.appleToken(subject: appleSubject), "device_name": "Ada's phone"],
                token: guest.accessToken, headers: device)
            #expect(upgrade.status == 200)
            let user = try Session(upgrade.json)
            #expect(user.userID == guest.userID)

            // A second guest merged into the same account.
            let other = try Session(try await stack.request("POST", "/api/v1/auth/guest", headers: device).json)
            let merge = try await stack.request(
                "POST", "/api/v1/auth/apple", body: ["identity_token": try await stack.appleToken(subject: appleSubject)],
                token: other.accessToken, headers: device)
            #expect(merge.status == 200)

            // Linking and unlinking Google.
            let googleSubject = "google-\(UUID().uuidString)"
            let link = try await stack.request(
                "POST", "/api/v1/auth/identities/google", body: ["id_token": try await stack.googleToken(subject: googleSubject)],
                token: user.accessToken, headers: device)
            #expect(link.status == 200)
            #expect(try await stack.request("DELETE", "/api/v1/auth/identities/google", token: user.accessToken, headers: device).status == 200)

            // Refresh reuse (no grace window): the session is revoked.
            let reused = try await stack.signInApple(subject: appleSubject)
            #expect(try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": reused.refreshToken]).status == 200)
            let reuse = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": reused.refreshToken], headers: device)
            #expect(reuse.errorCode == "refresh_token_reused")

            // Logouts of each scope, and a session ended from the list.
            let sessions = try await (0..<4).asyncMap { _ in try await stack.signInApple(subject: appleSubject) }
            #expect(try await stack.request("DELETE", "/api/v1/auth/sessions/\(try Self.sessionID(sessions[0]))", token: sessions[1].accessToken).status == 204)
            #expect(try await stack.request("POST", "/api/v1/auth/logout", token: sessions[1].accessToken, headers: device).status == 204)
            #expect(try await stack.request("POST", "/api/v1/auth/logout", body: ["scope": "others"], token: sessions[2].accessToken).status == 204)
            #expect(try await stack.request("POST", "/api/v1/auth/logout", body: ["scope": "global"], token: sessions[2].accessToken).status == 204)

            // An operator's actions.
            for action in ["deactivate", "activate", "revoke-sessions"] {
                #expect(try await stack.request("POST", "/admin/api/users/\(user.userID)/\(action)", headers: admin).status == 200)
            }
            // Apple turns the relay's forwarding off.
            let notification = try await stack.appleNotification(subject: appleSubject, type: "email-disabled")
            #expect(try await stack.request("POST", "/api/v1/auth/apple/notifications", body: notification).status == 200)

            let trail = try await Self.events(stack, admin: admin, query: "user_id=\(user.userID)")
            func one(_ type: String, where match: ([String: Any]) -> Bool = { _ in true }) -> [String: Any]? {
                trail.first { $0["type"] as? String == type && match($0) }
            }
            func details(_ event: [String: Any]?) -> [String: Any] { event?["details"] as? [String: Any] ?? [:] }

            let upgraded = try #require(one("guest_upgraded"))
            #expect(details(upgraded)["provider"] as? String == "apple")
            #expect(upgraded["ip"] as? String == stack.clientAddress)
            #expect(upgraded["user_agent"] as? String == Self.userAgent)
            #expect((upgraded["request_id"] as? String)?.isEmpty == false)
            let signIn = try #require(one("sign_in") { details($0)["device_name"] as? String == "Ada's phone" })
            #expect(details(signIn)["provider"] as? String == "apple")
            #expect(details(signIn)["new_user"] as? Bool == false)
            #expect(details(signIn)["bound"] as? Bool == false)
            #expect(signIn["session_id"] is String)
            #expect(signIn["user_agent"] as? String == Self.userAgent)
            #expect(details(one("guest_merged"))["guest_id"] as? String == other.userID)
            #expect(details(one("identity_linked"))["provider"] as? String == "google")
            #expect(details(one("identity_unlinked"))["provider"] as? String == "google")
            let reuseEvent = try #require(one("refresh_reuse_detected"))
            #expect(reuseEvent["session_id"] is String)
            #expect(reuseEvent["user_agent"] as? String == Self.userAgent)
            #expect(one("session_revoked") { details($0)["reason"] as? String == "user" } != nil)
            #expect(one("session_revoked") { details($0)["reason"] as? String == "deactivated" } != nil)
            for scope in ["local", "others", "global"] {
                #expect(one("logout") { details($0)["scope"] as? String == scope } != nil, "logout \(scope)")
            }
            #expect(one("user_deactivated") != nil)
            #expect(one("user_activated") != nil)
            #expect(one("sessions_revoked_by_admin") != nil)
            #expect(details(one("apple_notification"))["type"] as? String == "email-disabled")
            // The guest's own creation is on its trail (the first guest became this user).
            #expect(one("guest_created") != nil)

            // Admin logins have no user; the type filter finds them.
            let logins = try await Self.events(stack, admin: admin, query: "type=admin_login")
            #expect(logins.contains { $0["user_agent"] as? String == Self.userAgent && $0["ip"] as? String == stack.clientAddress })
            #expect(try await Self.events(stack, admin: admin, query: "type=admin_login_failed").isEmpty == false)

            // Newest first, across both services' trails, and never a token.
            let times = trail.compactMap { $0["occurred_at"] as? String }
            #expect(times == times.sorted(by: >))
            let text = String(decoding: try JSONSerialization.data(withJSONObject: trail), as: UTF8.self)
            for secret in [user.accessToken, user.refreshToken, reused.refreshToken, guest.refreshToken, Stack.adminPassword] {
                #expect(!text.contains(secret))
            }

            // Deleted: only the deletion's record is left, without IP or user agent.
            #expect(try await stack.request("POST", "/admin/api/users/\(user.userID)/activate", headers: admin).status == 200)
            let last = try await stack.signInApple(subject: appleSubject)
            let traces = try await DeletionOracle.Traces.of(user: user.userID)
            #expect(try await stack.request("DELETE", "/api/v1/auth/account", token: last.accessToken, headers: device).status == 204)
            try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            let after = try await Self.events(stack, admin: admin, query: "user_id=\(user.userID)")
            #expect(after.count == 1)
            #expect(after.first?["type"] as? String == "account_deleted")
            #expect(details(after.first)["by"] as? String == "user")
            #expect(after.first?["ip"] is NSNull)
            #expect(after.first?["user_agent"] is NSNull)
        }
    }

    @Test func aUserReadsTheirOwnActivityPageByPage() async throws {
        try await Stack.with { stack in
            let subject = "apple-\(UUID().uuidString)"
            var last: Session?
            for n in 0..<5 {
                last = try await stack.signInApple(subject: subject, extra: ["device_name": "device \(n)"])
            }
            let session = try #require(last)
            let stranger = try await stack.signInApple()
            var seen: [[String: Any]] = []
            var cursor: String?
            repeat {
                let query = "limit=2" + (cursor.map { "&cursor=\($0)" } ?? "")
                let page = try await stack.request("GET", "/api/v1/auth/activity?\(query)", token: session.accessToken)
                #expect(page.status == 200)
                seen += page.json["events"] as? [[String: Any]] ?? []
                cursor = page.json["next_cursor"] as? String
            } while cursor != nil
            let devices = seen.filter { $0["type"] as? String == "sign_in" }.compactMap { ($0["details"] as? [String: Any])?["device_name"] as? String }
            #expect(devices == (0..<5).reversed().map { "device \($0)" })
            #expect(seen.allSatisfy { $0["user_id"] as? String == session.userID })
            #expect(Set(seen.compactMap { $0["id"] as? String }).count == seen.count)
            #expect(!seen.contains { $0["user_id"] as? String == stranger.userID })
            let bad = try await stack.request("GET", "/api/v1/auth/activity?cursor=nope", token: session.accessToken)
            #expect(bad.status == 400)
            #expect(try await stack.request("GET", "/api/v1/auth/activity").status == 401)
        }
    }

    /// Every page of `GET /admin/api/audit?<query>`, newest first.
    static func events(_ stack: Stack, admin: [String: String], query: String) async throws -> [[String: Any]] {
        var events: [[String: Any]] = []
        var cursor: String?
        repeat {
            let page = try await stack.request("GET", "/admin/api/audit?\(query)&limit=200" + (cursor.map { "&cursor=\($0)" } ?? ""), headers: admin)
            guard page.status == 200 else { throw StackError.unexpected("audit: \(page.status) \(String(buffer: page.body))") }
            events += page.json["events"] as? [[String: Any]] ?? []
            cursor = page.json["next_cursor"] as? String
        } while cursor != nil
        return events
    }

    /// The session id (`sid`) of a signed-in session, read from its access token.
    static func sessionID(_ session: Session) throws -> String {
        let parts = session.accessToken.split(separator: ".")
        var payload = String(parts[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while payload.count % 4 != 0 { payload += "=" }
        let claims = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: payload))) as? [String: Any]
        return try #require(claims?["sid"] as? String)
    }
}

extension Sequence {
    /// The results of `transform` on each element, one after the other.
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}
