import Foundation
import Testing

/// Two `tokens` replicas behind one gateway: one is killed in the middle of a load, and no
/// idempotent call fails.
@Suite("End to end: scale-out", .timeLimit(.minutes(5)))
struct ScaleOutTests {
    @Test func killingATokensReplicaUnderLoadFailsNoIdempotentCall() async throws {
        try await Stack.with(tokensReplicas: 2, gatewayEnvironment: ["RATE_LIMIT_REFRESH_PER_MIN": "0"]) { stack in
            let sessions = try await withThrowingTaskGroup(of: Session.self) { group in
                for _ in 0..<16 { group.addTask { try await stack.signInApple() } }
                return try await group.reduce(into: [Session]()) { $0.append($1) }
            }
            let deadline = ContinuousClock.now + .seconds(4)
            let killAt = ContinuousClock.now + .seconds(1.5)
            // 16 callers, each refreshing its own chain and listing its sessions (both idempotent
            // calls to tokens) until the deadline; one replica is SIGKILLed after 1.5 s.
            let results = try await withThrowingTaskGroup(of: (ok: Int, failures: [String]).self) { group in
                for session in sessions {
                    group.addTask {
                        var current = session
                        var ok = 0
                        var failures: [String] = []
                        while ContinuousClock.now < deadline {
                            let refresh = try await stack.request("POST", "/api/v1/auth/refresh", body: ["refresh_token": current.refreshToken])
                            if refresh.status == 200 {
                                current = try Session(refresh.json)
                                ok += 1
                            } else {
                                failures.append("refresh \(refresh.status) \(refresh.errorCode ?? "")")
                            }
                            let list = try await stack.request("GET", "/api/v1/auth/sessions", token: current.accessToken)
                            if list.status == 200 { ok += 1 } else { failures.append("sessions \(list.status) \(list.errorCode ?? "")") }
                        }
                        return (ok, failures)
                    }
                }
                group.addTask {
                    try await Task.sleep(until: killAt)
                    let victim = try #require(stack.processes["tokens-0"])
                    kill(victim.process.processIdentifier, SIGKILL)
                    return (0, [])
                }
                return try await group.reduce(into: (ok: 0, failures: [String]())) {
                    $0.ok += $1.ok
                    $0.failures += $1.failures
                }
            }
            #expect(stack.processes["tokens-0"]?.process.isRunning == false)
            #expect(results.failures.isEmpty, "\(results.failures.prefix(10))")
            #expect(results.ok > 100)
        }
    }
}
