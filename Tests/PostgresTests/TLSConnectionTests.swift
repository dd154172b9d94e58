import Postgres
import TestSupport
import Testing

/// `DATABASE_URL` with `sslmode=verify-full` (DESIGN.md §9.5): against a Postgres with TLS on
/// and a certificate a throwaway authority signed, the client connects encrypted when it is
/// given that authority and refuses when the authority or the host name does not match. libpq
/// does the TLS; these tests hold the settings operators are told to use to what they promise.
@Suite(.timeLimit(.minutes(5))) struct TLSConnectionTests {
    /// `host` is the name the certificate is checked against; the connection always goes to
    /// 127.0.0.1 (`hostaddr`), where the server listens.
    func url(_ server: PrivatePostgresServer, host: String = "localhost", ca: String? = nil) -> String {
        "postgres://postgres@\(host):\(server.port)/postgres?hostaddr=127.0.0.1&sslmode=verify-full&sslrootcert=\(ca ?? server.caFile)&connect_timeout=10"
    }

    @Test func verifyFullConnectsEncryptedWithTheRightAuthority() async throws {
        try await PrivatePostgresServer.with(tls: true) { server in
            try await TestDatabase.withClient(poolSize: 1, url: self.url(server)) { client in
                let rows = try await client.query(
                    "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")
                #expect(try rows.first?.decode("ssl", as: Bool.self) == true)
                #expect(try rows.first?.decode("version", as: String?.self)?.hasPrefix("TLSv1.") == true)
                // The address is in the certificate too.
                let one = try await TestDatabase.withClient(poolSize: 1, url: self.url(server, host: "127.0.0.1")) { byAddress in
                    try await byAddress.query("SELECT 1 AS one")[0].decode("one", as: Int.self)
                }
                #expect(one == 1)
            }
        }
    }

    @Test func verifyFullRefusesAnotherAuthorityOrAnotherName() async throws {
        try await PrivatePostgresServer.with(tls: true) { server in
            // A certificate signed by an authority the client was not given, and the right
            // authority with a host name the certificate does not name: both refused by the
            // certificate check, not by anything else.
            for (url, reason) in [
                (self.url(server, ca: server.otherCAFile), "certificate verify failed"),
                (self.url(server, host: "db.example.org"), "does not match host name"),
            ] {
                let error = await #expect(throws: PostgresError.self) {
                    try await TestDatabase.withClient(poolSize: 1, acquireTimeout: .seconds(20), url: url) { client in
                        _ = try await client.query("SELECT 1")
                    }
                }
                #expect("\(error.map { String(describing: $0) } ?? "")".contains(reason), "\(String(describing: error))")
            }
        }
    }
}
