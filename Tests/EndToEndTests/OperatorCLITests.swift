import Foundation
import TestSupport
import TextCoding
import Testing

/// The `latchkey` operator CLI against the real stack: what each users command does is seen
/// through the public API and the database; exit statuses are the documented ones.
@Suite("End to end: the operator CLI", .timeLimit(.minutes(5)))
struct OperatorCLITests {
    /// Runs `latchkey` with the stack's operator settings; its exit status and output.
    func latchkey(_ stack: Stack, _ arguments: String..., environment extra: [String: String] = [:]) async throws -> (status: Int32?, stdout: String, stderr: String) {
        let process = try ServiceProcess("latchkey", arguments: arguments, environment: stack.operatorEnvironment.merging(extra) { $1 })
        let status = await process.waitForExit(timeout: .seconds(90))
        return (status, process.stdout, process.stderr)
    }

    @Test func usersCommandsActThroughTheBackends() async throws {
        try await Stack.with { stack in
            let email = "cli-\(UUID().uuidString.lowercased())@example.com"
            let subject = "apple-\(UUID().uuidString)"
            let first = try await stack.signInApple(subject: subject, email: email)
            let id = first.userID

            let list = try await latchkey(stack, "users", "list", "--query", email)
            #expect(list.status == 0, "\(list.stderr)")
            #expect(list.stdout == "\(id)\t\(email)\tactive\tuser\tapple\n")
            let show = try await latchkey(stack, "users", "show", id)
            #expect(show.status == 0)
            let shown = try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any]
            #expect(shown?["id"] as? String == id)
            #expect((shown?["identities"] as? [[String: Any]])?.first?["subject"] as? String == subject)

            // grant-admin: sessions opened from now on carry adm; revoke-admin ends them all.
            #expect(try await latchkey(stack, "users", "grant-admin", id).stdout.contains("\tadmin\t"))
            let admin = try await stack.signInApple(subject: subject)
            #expect(try Self.claims(admin.accessToken)["adm"] as? Bool == true)
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: admin.accessToken).json["is_admin"] as? Bool == true)
            #expect(try await latchkey(stack, "users", "revoke-admin", id).stdout.contains("\tuser\t"))
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: admin.accessToken).status == 401)
            let plain = try await stack.signInApple(subject: subject)
            #expect(try Self.claims(plain.accessToken)["adm"] == nil)

            // deactivate: the live token is refused at once; activate: signing in works again.
            #expect(try await latchkey(stack, "users", "deactivate", id).stdout.contains("\tinactive\t"))
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: plain.accessToken).status == 403)
            #expect(try await latchkey(stack, "users", "activate", id).status == 0)
            let back = try await waitForSignIn(stack, subject: subject)

            let revoked = try await latchkey(stack, "users", "revoke-sessions", id)
            #expect(revoked.status == 0)
            #expect(revoked.stdout.hasPrefix("revoked ") && revoked.stdout.hasSuffix(" sessions of \(id)\n"), "\(revoked.stdout)")
            #expect(try await stack.request("GET", "/api/v1/auth/me", token: back.accessToken).status == 401)

            // delete asks for --yes (usage error 64), then removes everything; the user is gone (3).
            #expect(try await latchkey(stack, "users", "delete", id).status == 64)
            let again = try await stack.signInApple(subject: subject)
            #expect(try await stack.request("PUT", "/api/v1/favorites/kept", token: again.accessToken).status == 200)
            let traces = try await DeletionOracle.Traces.of(user: id)
            #expect(try await StoredRows.of(user: id).itemStates == 1)
            let deleted = try await latchkey(stack, "users", "delete", id, "--yes")
            #expect(deleted.status == 0, "\(deleted.stderr)")
            try await DeletionOracle.expectNothingLeft(of: traces, redisURL: stack.redisURL)
            let missing = try await latchkey(stack, "users", "show", id)
            #expect(missing.status == 3)
            #expect(missing.stderr.hasPrefix("latchkey: not_found: "))
            #expect(try await latchkey(stack, "users", "revoke-sessions", id).status == 3)
        }
    }

    @Test func settingsAndUnreachableBackendsHaveTheirOwnExitStatus() async throws {
        try await Stack.with { stack in
            let id = UUID().uuidString
            let noToken = try await latchkey(stack, "users", "show", id, environment: ["SERVICE_TOKEN": ""])
            #expect(noToken.status == 2)
            #expect(noToken.stderr.contains("SERVICE_TOKEN"))
            let down = try await latchkey(stack, "users", "show", id, "--identity", "127.0.0.1:1", "--timeout", "2")
            #expect(down.status == 4, "\(down.stderr)")
            #expect(down.stderr.hasPrefix("latchkey: service_unavailable: ") || down.stderr.hasPrefix("latchkey: deadline_exceeded: "))
            #expect(try await latchkey(stack, "users", "show", "not-a-uuid").status == 64)
        }
    }

    @Test func migrateAndKeygenWorkOnTheirOwn() async throws {
        let migrate = try ServiceProcess("latchkey", arguments: ["migrate"], environment: ["DATABASE_URL": try requiredEnvironment("DATABASE_URL")])
        #expect(await migrate.waitForExit(timeout: .seconds(90)) == 0, "\(migrate.stderr)")
        #expect(migrate.stdout.split(separator: "\n").map { $0.split(separator: ":")[0] } == ["schema identity", "schema tokens", "schema content"])
        let noDatabase = try ServiceProcess("latchkey", arguments: ["migrate"], environment: [:])
        #expect(await noDatabase.waitForExit(timeout: .seconds(30)) == 2)
        #expect(noDatabase.stderr.contains("DATABASE_URL"))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-cli-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let keygen = try ServiceProcess("latchkey", arguments: ["keygen", "--keys-dir", folder.path, "--algorithm", "ES256"], environment: [:])
        #expect(await keygen.waitForExit(timeout: .seconds(30)) == 0, "\(keygen.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
        #expect(files.count == 1 && files[0].contains("-es256-") && files[0].hasSuffix(".pem"), "\(files)")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(files[0]).path)
        #expect(attributes[.posixPermissions] as? Int == 0o600)
    }

    /// A sign-in right after activation (the deactivation's not-before is rounded up to a whole
    /// second, see AdminTests).
    func waitForSignIn(_ stack: Stack, subject: String) async throws -> Session {
        var session: Session?
        try await waitUntil("a sign-in after activation is accepted", interval: .milliseconds(200)) {
            let candidate = try await stack.signInApple(subject: subject)
            guard try await stack.request("GET", "/api/v1/auth/me", token: candidate.accessToken).status == 200 else { return false }
            session = candidate
            return true
        }
        return try #require(session)
    }

    static func claims(_ token: String) throws -> [String: Any] {
        let payload = Data(try #require(Base64URL.decode(String(token.split(separator: ".")[1]))))
        return try #require(try JSONSerialization.jsonObject(with: payload) as? [String: Any])
    }
}
