import CoreMetrics
import Logging
import MetricsTestKit
import Testing

@testable import ServiceProtocol

/// Named callers (`RPC_CALLERS`, DESIGN.md §9.5): each caller's token admits it, and only to
/// the methods its line lists; a call outside them is `forbidden` and counted.
@Suite struct RPCCallersTests {
    static let gatewayToken = "gateway-token-0123456789"
    static let filterToken = "read-filter-token-0123456789"

    static var list: String {
        """
        # name:token-hash:methods
        gateway:\(RPCCallers.tokenHash(gatewayToken)):*

        read-filter:\(RPCCallers.tokenHash(filterToken)):test.echo, other.*
        """
    }

    @Test func theListIsReadLineByLine() throws {
        let callers = try RPCCallers(parsing: Self.list)
        #expect(callers.callers.keys.sorted() == ["gateway", "read-filter"])
        #expect(callers.callers["read-filter"]?.permissions.patterns == ["test.echo", "other.*"])
        #expect(callers.admit(name: "gateway", token: Self.gatewayToken) == .everything)
        #expect(callers.admit(name: "gateway", token: Self.filterToken) == nil)
        #expect(callers.admit(name: "nobody", token: Self.gatewayToken) == nil)
        // The hash is SHA-256's, in lowercase hex.
        #expect(RPCCallers.tokenHash("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test(arguments: [
        ("gateway:*", 1), ("gateway:abcd:*", 1), ("gate way:\(RPCCallers.tokenHash("x")):*", 1),
        ("gateway:\(RPCCallers.tokenHash("x").uppercased()):*", 1), ("gateway:\(RPCCallers.tokenHash("x")):", 1),
        ("a:\(RPCCallers.tokenHash("x")):*\n#\na:\(RPCCallers.tokenHash("y")):*", 3), ("# only a comment", 0),
    ])
    func aLineTheListCannotHoldIsRefusedByNumber(text: String, line: Int) {
        #expect(throws: RPCCallers.ParseError.self) { try RPCCallers(parsing: text) }
        do {
            _ = try RPCCallers(parsing: text)
        } catch {
            #expect(error.line == line, "\(error)")
        }
    }

    @Test func globsMatchRunsOfCharacters() {
        let permissions = RPCPermissions(["content.state.*", "tokens.verify", "*.jwks"])
        #expect(permissions.allows("content.state.query"))
        #expect(permissions.allows("content.state."))
        #expect(permissions.allows("tokens.verify"))
        #expect(permissions.allows("tokens.jwks"))
        #expect(permissions.allows("health") && permissions.allows("hello"))
        #expect(!permissions.allows("tokens.verifyAll"))
        #expect(!permissions.allows("content.stateX"))
        #expect(!permissions.allows("identity.deleteUser"))
        #expect(RPCPermissions.everything.allows("identity.deleteUser"))
    }

    @Test func aCallerMayCallItsMethodsOnlyAndTheRestIsForbiddenAndCounted() async throws {
        let metrics = TestMetrics()
        let router = withMetricsFactory(metrics) { testRouter() }
        let callers = try RPCCallers(parsing: Self.list)
        try await withServer(router: router, configure: { $0.callers = callers }) { server in
            // The service token alone no longer admits anyone.
            let anonymous = try await RawConnection.connect(port: server.port)
            #expect(errorCode(try await anonymous.hello()) == "unauthenticated")
            // Another caller's token, or an unknown name, neither.
            let impostor = try await RawConnection.connect(port: server.port)
            #expect(errorCode(try await impostor.hello(service: "read-filter", token: Self.gatewayToken)) == "unauthenticated")
            let stranger = try await RawConnection.connect(port: server.port)
            #expect(errorCode(try await stranger.hello(service: "stranger", token: Self.filterToken)) == "unauthenticated")

            let filter = try await RawConnection.connect(port: server.port)
            let hello = try await filter.hello(service: "read-filter", token: Self.filterToken)
            #expect((hello["result"] as? [String: Any])?["methods"] as? [String] == ["hello", "test.echo"])
            try await filter.send(#"{"v":1,"id":2,"method":"test.echo","params":{"value":7}}"#)
            #expect(((try await filter.receive())["result"] as? [String: Any])?["value"] as? Int == 7)
            try await filter.send(#"{"v":1,"id":3,"method":"test.fail","params":{"kind":"not_found"}}"#)
            let refused = try await filter.receive()
            #expect(errorCode(refused) == "forbidden")
            #expect(refused["id"] as? Int == 3)
            // The connection survives a forbidden call.
            try await filter.send(#"{"v":1,"id":4,"method":"test.echo","params":{"value":8}}"#)
            #expect(((try await filter.receive())["result"] as? [String: Any])?["value"] as? Int == 8)

            let gateway = try await RawConnection.connect(port: server.port)
            _ = try await gateway.hello(service: "gateway", token: Self.gatewayToken)
            try await gateway.send(#"{"v":1,"id":5,"method":"test.fail","params":{"kind":"not_found"}}"#)
            #expect(errorCode(try await gateway.receive()) == "not_found")
        }
        #expect(try metrics.expectCounter("rpc_server_requests_total", [("method", "test.fail"), ("code", "forbidden")]).totalValue == 1)
    }
}
