import Foundation
import TestSupport
import Testing

/// SIGTERM with a request in flight: the gateway stops taking connections, answers the request
/// it holds, then exits 0.
@Suite("End to end: the gateway drains on SIGTERM", .timeLimit(.minutes(5)))
struct GatewayDrainTests {
    @Test func aRequestInFlightCompletesAndNewConnectionsAreRefused() async throws {
        try await Stack.with { stack in
            let session = try await stack.signInApple()
            #expect(try await stack.request("PUT", "/api/v1/favorites/first", token: session.accessToken).status == 200)
            let user = try #require(UUID(uuidString: session.userID))
            let gateway = try #require(stack.processes["gateway"])
            // content-state's write waits on the user's row, which the test holds locked.
            let put = try await HeldRowLock.with(
                "SELECT user_id FROM content.user_versions WHERE user_id = $1 FOR UPDATE", [.uuid(user)]
            ) { lock in
                let put = Task { try await stack.request("PUT", "/api/v1/favorites/in-flight", token: session.accessToken) }
                try await lock.waitUntilSomeoneWaits()
                gateway.terminate()
                try await waitUntil("the gateway refuses new connections") { !acceptsConnections(port: stack.gatewayPort) }
                #expect(gateway.process.isRunning, "the gateway exited with a request in flight")
                return put
            }
            let reply = try await put.value
            #expect(reply.status == 200, "\(String(buffer: reply.body))")
            #expect(reply.json["item_id"] as? String == "in-flight")
            #expect(await gateway.waitForExit(timeout: .seconds(60)) == 0, "\(gateway.stdout.suffix(2000))")
        }
    }
}
