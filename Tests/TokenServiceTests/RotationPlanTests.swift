import Foundation
import Postgres
import TestSupport
import Testing
@testable import TokenService

/// The rotation's plan: the presented token's row is found by its key, whatever the
/// statistics say about sessions, so a session refreshed for months costs what a new one does.
@Suite struct RotationPlanTests {
    /// Statistics gathered when every session held one token (a busy sign-in day), then one
    /// session refreshed a thousand times: the plan Postgres picks for the rotation, custom
    /// (the first executions of a prepared statement) and generic (later ones), must look the
    /// token up by `refresh_tokens_pkey`. With `r.session_id = $5` it read the session's index,
    /// which is smaller than the key's and looked as selective.
    @Test func theRotationFindsTheTokenByItsKeyWhateverTheStatisticsSayOfSessions() async throws {
        try await TokensHarness.run { tokens in
            let plans = try await tokens.postgres.inRolledBackTransaction { connection in
                // Tables of their own (the shared test database holds other tests' tokens),
                // with the same columns and indexes.
                try await connection.execute("CREATE SCHEMA rotation_plan")
                try await connection.execute(
                    "CREATE TABLE rotation_plan.sessions (LIKE tokens.sessions INCLUDING ALL)")
                try await connection.execute(
                    "CREATE TABLE rotation_plan.refresh_tokens (LIKE tokens.refresh_tokens INCLUDING ALL)")
                try await connection.execute(
                    """
                    INSERT INTO rotation_plan.sessions (id, user_id, created_at, last_used_at, expires_at)
                    SELECT gen_random_uuid(), gen_random_uuid(), now(), now(), now() + interval '1 day'
                    FROM generate_series(1, 3000)
                    """)
                try await connection.execute(
                    """
                    INSERT INTO rotation_plan.refresh_tokens (hash, session_id, generation, issued_at)
                    SELECT sha256(id::text::bytea), id, 0, now() FROM rotation_plan.sessions WHERE created_at = now()
                    """)
                try await connection.execute("ANALYZE rotation_plan.sessions, rotation_plan.refresh_tokens")
                let longLived = UUID()
                try await connection.execute(
                    """
                    INSERT INTO rotation_plan.sessions (id, user_id, created_at, last_used_at, expires_at)
                    VALUES ($1, gen_random_uuid(), now(), now(), now() + interval '1 day')
                    """, [.uuid(longLived)])
                try await connection.execute(
                    """
                    INSERT INTO rotation_plan.refresh_tokens (hash, session_id, generation, issued_at, rotated_at)
                    SELECT sha256(('long-lived ' || g)::bytea), $1, g, now(), CASE WHEN g < 1000 THEN now() END
                    FROM generate_series(0, 1000) g
                    """, [.uuid(longLived)])
                try await connection.execute(
                    "PREPARE rotation(bytea, timestamptz, bytea, bytea, uuid) AS \(RefreshRotation.rotation.replacingOccurrences(of: "tokens.", with: "rotation_plan."))")
                var plans: [String: String] = [:]
                for mode in ["force_custom_plan", "force_generic_plan"] {
                    try await connection.execute("SET LOCAL plan_cache_mode = \(mode)")
                    let rows = try await connection.query(
                        """
                        EXPLAIN EXECUTE rotation(sha256('long-lived 1000'::bytea), now(), '\\x00', '\\x01', '\(longLived.uuidString)')
                        """)
                    plans[mode] = try rows.map { try $0.decode(0, as: String.self) }.joined(separator: "\n")
                }
                // A prepared statement outlives the transaction; the connection goes back to the pool.
                try await connection.execute("DEALLOCATE rotation")
                return plans
            }
            #expect(plans.count == 2)
            for (mode, plan) in plans {
                #expect(plan.contains("Index Scan using refresh_tokens_pkey on refresh_tokens r"), "\(mode):\n\(plan)")
                #expect(!plan.contains("refresh_tokens_session_id_idx"), "\(mode):\n\(plan)")
            }
        }
    }
}
