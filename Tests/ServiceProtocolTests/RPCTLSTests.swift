import Foundation
import Logging
import TestSupport
import Testing

@testable import ServiceProtocol

/// The internal protocol over mutual TLS (DESIGN.md §9.5): a client with a certificate of the
/// deployment's authority calls a server with one; a client without a certificate, with one
/// another authority signed, or one that speaks plain TCP, gets nothing; a server whose
/// certificate does not name the host the client dialled is refused by the client.
@Suite(.timeLimit(.minutes(5))) struct RPCTLSTests {
    /// Certificates made once for the suite: `server`, `client` (signed by `ca`), `stranger`.
    static let folder: Task<String, any Error> = Task {
        let directory = NSTemporaryDirectory() + "rpc-tls-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await TestCertificates.make(in: directory, names: ["server", "client"])
        return directory
    }

    func tls(_ name: String, ca: String = "ca") async throws -> RPCTLS {
        let folder = try await Self.folder.value
        return try RPCTLS(certificateFile: "\(folder)/\(name).crt", keyFile: "\(folder)/\(name).key", caFile: "\(folder)/\(ca).crt")
    }

    /// One call through a client with `tls` to `host`; the error it fails with, or nil when it
    /// succeeds. A call that must fail is given 3 s; one that must succeed is given `timeout`
    /// (under the unit phase's hundreds of tests on two cores, a handshake can wait that long).
    func callFails(port: Int, host: String = "127.0.0.1", tls: RPCTLS?, timeout: Duration = .seconds(3)) async -> (any Error)? {
        var configuration = clientConfiguration(ports: [port])
        configuration.endpoints = [RPCEndpoint(host: host, port: port)]
        configuration.tls = tls
        configuration.callTimeout = timeout
        configuration.connectTimeout = timeout
        do {
            try await RPCClient.withClient(configuration: configuration, logger: Logger(label: "tls-test")) { client in
                let echo = try await client.call("test.echo", Echo(value: 7), as: Echo.self)
                #expect(echo.value == 7)
            }
            return nil
        } catch {
            return error
        }
    }

    @Test func aClientWithTheAuthoritysCertificateCalls() async throws {
        let server = try await self.tls("server")
        let client = try await self.tls("client")
        try await withServer(configure: { $0.tls = server }) { rpc in
            let byAddress = await self.callFails(port: rpc.port, tls: client, timeout: .seconds(60))
            #expect(byAddress == nil, "\(String(describing: byAddress))")
            // By name too: the certificate names localhost.
            let byName = await self.callFails(port: rpc.port, host: "localhost", tls: client, timeout: .seconds(60))
            #expect(byName == nil, "\(String(describing: byName))")
        }
    }

    @Test func clientsWithoutAGoodCertificateOrWithoutTLSGetNothing() async throws {
        let server = try await self.tls("server")
        let foreign = try await self.tls("stranger", ca: "other-ca")
        let foreignTrustingUs = try await self.tls("stranger", ca: "ca")
        try await withServer(configure: { $0.tls = server }) { rpc in
            // A certificate another authority signed (trusting that authority itself).
            #expect(await self.callFails(port: rpc.port, tls: foreign) != nil)
            // A client that trusts the server but brings another authority's certificate.
            #expect(await self.callFails(port: rpc.port, tls: foreignTrustingUs) != nil)
            // Plain TCP.
            #expect(await self.callFails(port: rpc.port, tls: nil) != nil)
        }
    }

    @Test func aClientRefusesAServerItsAuthorityDidNotSignOrThatNamesAnotherHost() async throws {
        let client = try await self.tls("client")
        // The server's certificate is the stranger's.
        let strangerServer = try await self.tls("stranger", ca: "ca")
        try await withServer(configure: { $0.tls = strangerServer }) { rpc in
            #expect(await self.callFails(port: rpc.port, tls: client) != nil)
        }
        // A good certificate, dialled at an address it does not name (it names 127.0.0.1 and
        // localhost; the server listens on 127.0.0.2).
        let server = try await self.tls("server")
        try await withServer(configure: { $0.tls = server; $0.host = "127.0.0.2" }) { rpc in
            #expect(await self.callFails(port: rpc.port, host: "127.0.0.2", tls: client) != nil)
        }
    }

    @Test func anUnusableFileIsNamed() async throws {
        let folder = try await Self.folder.value
        #expect(throws: RPCTLS.Unusable.self) {
            try RPCTLS(certificateFile: "\(folder)/server.key", keyFile: "\(folder)/server.key", caFile: "\(folder)/ca.crt")
        }
        do {
            _ = try RPCTLS(certificateFile: "\(folder)/server.crt", keyFile: "\(folder)/missing.key", caFile: "\(folder)/ca.crt")
            Issue.record("a missing key was accepted")
        } catch {
            #expect(error.file == "\(folder)/missing.key")
        }
    }
}
