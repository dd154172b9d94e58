import Foundation

/// A throwaway certificate authority for one test's TLS, made with the system's `openssl` in a
/// folder of the test's: `ca.crt`, and for each name `<name>.crt` and `<name>.key` (0600) that
/// it signed for `localhost` and 127.0.0.1; and `other-ca.crt` with `stranger.crt` and
/// `stranger.key`, signed by an authority nobody trusts, for refusals.
public enum TestCertificates {
    public static func make(in directory: String, names: [String]) async throws {
        let openssl = "/usr/bin/openssl"
        for authority in ["ca", "other-ca"] {
            try await runCommand(openssl, [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=latchkey-test-\(authority)",
                "-keyout", "\(directory)/\(authority).key", "-out", "\(directory)/\(authority).crt",
            ])
        }
        let extensions = "\(directory)/leaf.ext"
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth,clientAuth\n"
            .write(toFile: extensions, atomically: true, encoding: .utf8)
        for (name, authority) in names.map({ ($0, "ca") }) + [("stranger", "other-ca")] {
            try await runCommand(openssl, [
                "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=\(name)",
                "-keyout", "\(directory)/\(name).key", "-out", "\(directory)/\(name).csr",
            ])
            try await runCommand(openssl, [
                "x509", "-req", "-in", "\(directory)/\(name).csr", "-CA", "\(directory)/\(authority).crt",
                "-CAkey", "\(directory)/\(authority).key", "-CAcreateserial", "-days", "2", "-extfile", extensions,
                "-out", "\(directory)/\(name).crt",
            ])
            // Servers refuse a key others may read.
            try await runCommand("/bin/chmod", ["600", "\(directory)/\(name).key"])
        }
    }
}
