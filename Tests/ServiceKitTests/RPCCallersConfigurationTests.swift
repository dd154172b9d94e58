import Foundation
import ServiceProtocol
import Testing

@testable import ServiceKit

/// `RPC_CALLERS` names a file of callers; one the service cannot read or hold stops it at
/// start with the variable named.
@Suite struct RPCCallersConfigurationTests {
    func configuration(_ env: [String: String]) throws -> CommonConfiguration {
        try CommonConfiguration(EnvironmentReader(["ENVIRONMENT": "development"].merging(env) { $1 }), defaultRPCPort: 1, defaultOpsPort: 2)
    }

    func file(_ text: String) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("rpc-callers-\(UUID().uuidString)").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aListIsReadAndNoneMeansTheServiceToken() throws {
        #expect(try self.configuration([:]).rpcCallers == nil)
        let path = try self.file("gateway:\(RPCCallers.tokenHash("a-token-of-the-gateway")):*\n")
        let callers = try #require(try self.configuration(["RPC_CALLERS": path]).rpcCallers)
        #expect(callers.admit(name: "gateway", token: "a-token-of-the-gateway") == .everything)
    }

    @Test func anUnreadableOrMalformedListStopsTheServiceNamingTheVariable() throws {
        for path in ["/nonexistent/rpc-callers", try self.file("gateway:not-a-hash:*\n")] {
            let error = #expect(throws: ConfigurationError.self) { try self.configuration(["RPC_CALLERS": path]) }
            #expect(error?.variable == "RPC_CALLERS")
        }
    }
}
