import Foundation
import ServiceProtocol
import Testing
import TokensAPI

/// `tokens` replicas started together in development on an empty key folder (`docker compose
/// up --scale tokens=3`, or the tests' own processes): they make one key between them, so a
/// token any of them signs verifies at every other.
@Suite(.timeLimit(.minutes(5))) struct DevelopmentKeyTests {
    @Test func replicasStartingTogetherOnAnEmptyFolderShareOneKey() async throws {
        let state = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-state-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: state) }
        let token = "development-key-tests-\(UUID().uuidString)"
        async let first = BackendProcess.started("tokens", ["XDG_STATE_HOME": state.path], token: token)
        async let second = BackendProcess.started("tokens", ["XDG_STATE_HOME": state.path], token: token)
        async let third = BackendProcess.started("tokens", ["XDG_STATE_HOME": state.path], token: token)
        let replicas = try await [first, second, third]
        defer { for replica in replicas { replica.process.terminate() } }
        var published: [[String]] = []
        for replica in replicas {
            published.append(try await replica.withClient { try await $0.call(Tokens.jwks, Empty()) }.keys.compactMap(\.kid))
        }
        let folder = state.appendingPathComponent("latchkey/development-signing-keys", isDirectory: true)
        let keys = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".pem") }
        #expect(keys.count == 1, "\(keys)")
        #expect(published.allSatisfy { $0.count == 1 && $0 == published[0] }, "\(published)")

        // A token one replica signs verifies at the others.
        let pair = try await replicas[0].withClient { try await $0.call(Tokens.issue, IssueParams(userID: UUID())) }
        for replica in replicas.dropFirst() {
            let claims = try await replica.withClient { try await $0.call(Tokens.verify, VerifyParams(accessToken: pair.accessToken)) }
            #expect(claims.sessionID == pair.sessionID)
        }
    }
}
