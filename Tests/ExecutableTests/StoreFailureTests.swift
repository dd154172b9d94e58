import Foundation
import ServiceProtocol
import TestSupport
import Testing

/// A Postgres that stops a statement (an operator's cancel, SQLSTATE class 57) or drops the
/// connection under it is `service_unavailable` (retryable) in every backend alike, the same
/// mapping for all (ServiceKit's StoreFailure), never `internal`.
@Suite(.timeLimit(.minutes(5))) struct StoreFailureTests {
    @Test(arguments: ["identity", "tokens", "content-state"], [false, true])
    func aStatementStoppedByPostgresIsServiceUnavailable(_ service: String, terminated: Bool) async throws {
        let backend = try await BackendProcess.started(service)
        try await backend.withClient { client in
            let slow = try await SlowRequest.prepare(for: service, client: client)
            let call = try await HeldRowLock.with(slow.lockSQL, slow.bindings) { lock in
                let call = Task { try await slow.call() }
                try await lock.waitUntilSomeoneWaits()
                try await lock.stopWaiters(terminate: terminated)
                return call
            }
            let error = await #expect(throws: RPCError.self) { try await call.value }
            #expect(error?.code == .serviceUnavailable, "\(service): \(String(describing: error))")
            #expect(error?.retryable == true)
            // The service goes on: the same call works once Postgres lets it.
            try await slow.call()
        }
        await backend.stop()
    }
}
