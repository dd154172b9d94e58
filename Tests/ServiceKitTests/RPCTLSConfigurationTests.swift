import Foundation
import TestSupport
import Testing

@testable import ServiceKit

/// `RPC_TLS_CERT_FILE`, `RPC_TLS_KEY_FILE` and `RPC_TLS_CA_FILE` come together; a missing or
/// unusable one stops the service at start, named.
@Suite(.timeLimit(.minutes(2))) struct RPCTLSConfigurationTests {
    func configuration(_ env: [String: String]) throws -> CommonConfiguration {
        try CommonConfiguration(EnvironmentReader(["ENVIRONMENT": "development"].merging(env) { $1 }), defaultRPCPort: 1, defaultOpsPort: 2)
    }

    @Test func allThreeOrNoneAndEachFileUsable() async throws {
        let folder = NSTemporaryDirectory() + "rpc-tls-config-" + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try await TestCertificates.make(in: folder, names: ["service"])
        let files = ["RPC_TLS_CERT_FILE": "\(folder)/service.crt", "RPC_TLS_KEY_FILE": "\(folder)/service.key", "RPC_TLS_CA_FILE": "\(folder)/ca.crt"]

        #expect(try self.configuration([:]).rpcTLS == nil)
        #expect(try self.configuration(files).rpcTLS != nil)
        for name in files.keys {
            var partial = files
            partial[name] = nil
            let error = #expect(throws: ConfigurationError.self) { try self.configuration(partial) }
            #expect(error == .missing(name))
        }
        var wrong = files
        wrong["RPC_TLS_KEY_FILE"] = "\(folder)/ca.crt"
        let error = #expect(throws: ConfigurationError.self) { try self.configuration(wrong) }
        #expect(error?.variable == "RPC_TLS_KEY_FILE")
    }
}
