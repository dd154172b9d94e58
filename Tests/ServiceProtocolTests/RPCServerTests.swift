import Foundation
import NIOCore
import Testing

@testable import ServiceProtocol

@Suite struct RPCServerTests {
    @Test func helloWithTheRightTokenListsTheMethods() async throws {
        try await withServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            let reply = try await connection.hello()
            let result = try #require(reply["result"] as? [String: Any])
            #expect(result["service"] as? String == "test")
            #expect((result["methods"] as? [String])?.contains("test.echo") == true)
        }
    }

    @Test func wrongHelloTokenIsRefusedAndTheConnectionClosed() async throws {
        try await withServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            let reply = try await connection.hello(token: "wrong-token")
            #expect(errorCode(reply) == "unauthenticated")
            #expect(await connection.isClosedByPeer())
        }
    }

    @Test func requestBeforeHelloIsRefused() async throws {
        try await withServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            try await connection.send(#"{"v":1,"id":5,"method":"test.echo","params":{"value":1}}"#)
            #expect(errorCode(try await connection.receive()) == "unauthenticated")
            #expect(await connection.isClosedByPeer())
        }
    }

    @Test func malformedJSONGetsBadRequestAndTheConnectionSurvives() async throws {
        try await withServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            _ = try await connection.hello()
            try await connection.send(#"{"v":1,"id":2,"meth"#)
            let bad = try await connection.receive()
            #expect(errorCode(bad) == "bad_request")
            #expect(bad["id"] as? Int == 0)
            try await connection.send(#"{"v":1,"id":3,"method":"test.echo","params":{"value":41}}"#)
            let good = try await connection.receive()
            #expect(good["id"] as? Int == 3)
            #expect((good["result"] as? [String: Any])?["value"] as? Int == 41)
        }
    }

    @Test func oversizeLengthPrefixGetsFrameTooLargeAndTheConnectionCloses() async throws {
        try await withServer(configure: { $0.maximumFrameSize = 1024 }) { server in
            let connection = try await RawConnection.connect(port: server.port)
            _ = try await connection.hello()
            try await connection.sendBytes([0x7F, 0xFF, 0xFF, 0xFF])
            let reply = try await connection.receive()
            #expect(errorCode(reply) == "frame_too_large")
            #expect(await connection.isClosedByPeer())
            // The server itself is unharmed.
            let other = try await RawConnection.connect(port: server.port)
            #expect(try await other.hello()["result"] != nil)
        }
    }

    @Test func unknownMethodAndBadParamsGetCatalogueErrors() async throws {
        try await withServer { server in
            let connection = try await RawConnection.connect(port: server.port)
            _ = try await connection.hello()
            try await connection.send(#"{"v":1,"id":2,"method":"test.nope","params":{}}"#)
            #expect(errorCode(try await connection.receive()) == "method_not_found")
            try await connection.send(#"{"v":1,"id":3,"method":"test.echo","params":{"value":"x"}}"#)
            let reply = try await connection.receive()
            #expect(errorCode(reply) == "bad_request")
            #expect(((reply["error"] as? [String: Any])?["message"] as? String)?.contains("params.value") == true)
        }
    }

    @Test func handlerErrorsMapToTheCatalogueWithoutInternals() async throws {
        try await withServer { server in
            try await RPCClient.withClient(configuration: clientConfiguration(ports: [server.port]), logger: .init(label: "t")) { client in
                let notFound = await #expect(throws: RPCError.self) {
                    try await client.call("test.fail", ["kind": "not_found"], as: Empty.self)
                }
                #expect(notFound?.code == .notFound)
                let unknown = await #expect(throws: RPCError.self) {
                    try await client.call("test.fail", ["kind": "boom"], as: Empty.self)
                }
                #expect(unknown?.code == .internal)
                #expect(unknown?.message.contains("secret-internal-detail") == false)
            }
        }
    }

    @Test func gracefulShutdownFinishesRequestsInFlight() async throws {
        // The shutdown starts once the handler runs, not after a fixed wait: on a starved
        // machine (CI) the request could still be on its way after 100 ms, and then it is not
        // in flight but refused, which is a different case.
        let (started, signal) = AsyncStream<Void>.makeStream()
        var router = testRouter()
        router.register("test.slow") { (params: Echo, _) in
            signal.yield()
            try await Task.sleep(for: .milliseconds(params.delayMs ?? 0))
            return params
        }
        try await withServer(router: router) { server in
            try await RPCClient.withClient(configuration: clientConfiguration(ports: [server.port]), logger: .init(label: "t")) { client in
                async let slow = client.call("test.slow", Echo(value: 9, delayMs: 300), as: Echo.self)
                var handlerStarted = started.makeAsyncIterator()
                _ = await handlerStarted.next()
                server.shutdown()
                let reply = try await slow
                #expect(reply == Echo(value: 9, delayMs: 300))
            }
        }
    }
}
