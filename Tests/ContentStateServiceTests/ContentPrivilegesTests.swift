import ContentStateService
import Foundation
import Postgres
import TestSupport
import Testing

/// `ContentCalls.checkPrivileges`, the gateway's `content` readiness check: a role with the
/// grants of deploy/postgres-init's `latchkey_gateway` passes; the read-only role of the release
/// before fails with each grant it lacks named, before any user's write would.
@Suite struct ContentPrivilegesTests {
    @Test func aRoleThatMayOnlyReadIsNamedWithTheGrantsItLacks() async throws {
        _ = try await TestService.standard()  // schema content, migrated
        let role = "content_calls_\(UUID().uuidString.prefix(8).lowercased())"
        let url = try requiredEnvironment("DATABASE_URL")
        let roleURL = url + (url.contains("?") ? "&" : "?") + "user=\(role)&password=pw"
        try await withTestDatabase { admin in
            try await admin.execute("CREATE ROLE \(role) LOGIN PASSWORD 'pw'")
            try await admin.execute("GRANT USAGE ON SCHEMA content TO \(role)")
            try await admin.execute("GRANT SELECT ON ALL TABLES IN SCHEMA content TO \(role)")
        }
        do {
            try await withTestDatabase(url: roleURL) { postgres in
                let calls = ContentCalls(postgres: postgres, configuration: ContentStateConfiguration())
                let error = await #expect(throws: ContentPrivilegesMissing.self) { try await calls.checkPrivileges() }
                #expect(error?.missing == [
                    "INSERT on content.item_states", "UPDATE on content.item_states",
                    "INSERT on content.user_versions", "UPDATE on content.user_versions",
                ])
                #expect(error?.description.contains("10-latchkey-roles.sh") == true)
            }
            // The grants of the roles script: ready.
            try await withTestDatabase { admin in
                try await admin.execute("GRANT SELECT, INSERT, UPDATE ON ALL TABLES IN SCHEMA content TO \(role)")
            }
            try await withTestDatabase(url: roleURL) { postgres in
                try await ContentCalls(postgres: postgres, configuration: ContentStateConfiguration()).checkPrivileges()
            }
        } catch {
            try await Self.drop(role)
            throw error
        }
        try await Self.drop(role)
    }

    static func drop(_ role: String) async throws {
        try await withTestDatabase { admin in
            try await admin.execute("DROP OWNED BY \(role)")
            try await admin.execute("DROP ROLE \(role)")
        }
    }
}
