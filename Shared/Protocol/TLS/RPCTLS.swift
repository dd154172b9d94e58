import NIOCore
import NIOSSL

/// Mutual TLS for the internal protocol (DESIGN.md §9.5: `RPC_TLS_CERT_FILE`,
/// `RPC_TLS_KEY_FILE`, `RPC_TLS_CA_FILE`). One certificate a service, signed by the
/// deployment's authority: a server presents it and admits only clients whose certificate the
/// authority signed; a client presents it and accepts only a server whose certificate the
/// authority signed for the name (or address) it dialled. TLS 1.2 at least.
public struct RPCTLS: Sendable {
    /// What a server of the protocol speaks.
    public let server: NIOSSLContext
    /// What a client of the protocol speaks.
    public let client: NIOSSLContext

    /// A file that cannot be read or used; names it.
    public struct Unusable: Error, CustomStringConvertible {
        public var file: String
        public var reason: String
        public var description: String { "\(file): \(reason)" }
    }

    public init(certificateFile: String, keyFile: String, caFile: String) throws(Unusable) {
        let chain: [NIOSSLCertificateSource]
        let key: NIOSSLPrivateKey
        let roots: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile).map { .certificate($0) }
        } catch {
            throw Unusable(file: certificateFile, reason: "not a PEM certificate chain")
        }
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw Unusable(file: keyFile, reason: "not a PEM private key")
        }
        do {
            roots = try NIOSSLCertificate.fromPEMFile(caFile)
        } catch {
            throw Unusable(file: caFile, reason: "not a PEM certificate")
        }
        guard !chain.isEmpty else { throw Unusable(file: certificateFile, reason: "holds no certificate") }
        guard !roots.isEmpty else { throw Unusable(file: caFile, reason: "holds no certificate") }

        var server = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
        server.trustRoots = .certificates(roots)
        // A client is known by its certificate's chain; it has no name to check.
        server.certificateVerification = .noHostnameVerification
        server.minimumTLSVersion = .tlsv12
        var client = TLSConfiguration.makeClientConfiguration()
        client.trustRoots = .certificates(roots)
        client.certificateChain = chain
        client.privateKey = .privateKey(key)
        client.certificateVerification = .fullVerification
        client.minimumTLSVersion = .tlsv12
        do {
            self.server = try NIOSSLContext(configuration: server)
            self.client = try NIOSSLContext(configuration: client)
        } catch {
            throw Unusable(file: keyFile, reason: "the key and certificate cannot be used together (\(error))")
        }
    }

    /// The name a client checks the server's certificate against: the endpoint's DNS name, or
    /// nil for an address (then the certificate must name the address).
    static func serverName(of address: SocketAddress) -> String? {
        let host: String
        switch address {
        case .v4(let v4): host = v4.host
        case .v6(let v6): host = v6.host
        default: return nil
        }
        guard !host.isEmpty, (try? SocketAddress(ipAddress: host, port: 0)) == nil else { return nil }
        return host
    }
}
