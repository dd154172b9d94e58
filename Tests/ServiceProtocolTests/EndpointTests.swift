import Testing

@testable import ServiceProtocol

@Suite struct EndpointTests {
    @Test func parsesCommaListsOfHostsAndPorts() throws {
        let endpoints = try RPCEndpoint.parseList("tokens:7002, 10.0.0.5:7003,[::1]:7004")
        #expect(endpoints == [
            RPCEndpoint(host: "tokens", port: 7002),
            RPCEndpoint(host: "10.0.0.5", port: 7003),
            RPCEndpoint(host: "::1", port: 7004),
        ])
    }

    @Test(arguments: ["", "tokens", "tokens:", ":7002", "tokens:0", "tokens:70000", "tokens:abc"])
    func rejectsMalformedEndpoints(_ text: String) {
        #expect(throws: RPCEndpointError.self) { try RPCEndpoint.parseList(text) }
    }

    @Test func resolvesANameToItsAddresses() async throws {
        let addresses = try await AddressResolver.resolve(RPCEndpoint(host: "localhost", port: 7002))
        #expect(!addresses.isEmpty)
        #expect(addresses.allSatisfy { $0.port == 7002 })
    }

    @Test func constantTimeComparisonMatchesOnlyEqualSecrets() {
        #expect(constantTimeEquals("secret", "secret"))
        #expect(!constantTimeEquals("secret", "secreT"))
        #expect(!constantTimeEquals("secret", "secret2"))
        #expect(!constantTimeEquals("", "x"))
        #expect(constantTimeEquals("", ""))
    }
}
