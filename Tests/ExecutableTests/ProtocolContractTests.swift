import ContentStateAPI
import Foundation
import IdentityAPI
import ServiceProtocol
import TestSupport
import Testing
import TokensAPI

/// The internal contract as outside callers meet it: each backend's `hello` lists exactly the
/// methods of its API library, each documented in docs/protocol.md; a client in another
/// language (Examples/python, standard library only) speaks the protocol; and the example
/// internal service (Examples/read-filter) works with nothing but the API libraries.
@Suite(.timeLimit(.minutes(5))) struct ProtocolContractTests {
        static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let methods: [String: [String]] = [
        "identity": Identity.methodNames, "tokens": Tokens.methodNames, "content-state": ContentState.methodNames,
    ]

    @Test func everyDescribedMethodIsDocumented() throws {
        let document = try String(contentsOf: Self.repository.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        for (service, names) in Self.methods {
            for name in names {
                #expect(document.contains("`\(name)`"), "\(service): \(name) is not in docs/protocol.md")
            }
        }
    }

    @Test(arguments: ["identity", "tokens", "content-state"])
    func aPythonClientSeesExactlyTheAPIMethods(_ service: String) async throws {
        let backend = try await BackendProcess.started(service)
        defer { backend.process.terminate() }
        let run = try runPython(backend, method: "health")
        #expect(run.status == 0, "\(run.output)")
        let lines = run.output.split(separator: "\n").map(String.init)
        let hello = try #require(lines.first.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect(hello["service"] as? String == service)
        let listed = Set(hello["methods"] as? [String] ?? []).subtracting(["hello", "health"])
        #expect(listed == Set(Self.methods[service] ?? []), "hello lists \(listed.sorted())")
        let health = try #require(lines.last.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        #expect((health["result"] as? [String: Any])?["status"] as? String == "ok")
    }

    /// Examples/python/user_events.py follows identity's feed: each user created shows up once,
    /// and a second run goes on from the cursor file where the first stopped.
    @Test func thePythonExampleFollowsTheUserEventFeed() async throws {
        let backend = try await BackendProcess.started("identity")
        defer { backend.process.terminate() }
        let cursorFile = FileManager.default.temporaryDirectory.appendingPathComponent("user-events-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: cursorFile) }
        func createGuest() throws -> String {
            let run = try runPython(backend, method: "identity.createGuest")
            let line = try #require(run.output.split(separator: "\n").last)
            let result = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            return try #require((result["result"] as? [String: Any])?["id"] as? String).lowercased()
        }
        /// The users of `mine` whose creation the example printed (other tests share the database).
        func followedUsers(_ mine: Set<String>) throws -> [String] {
            let run = try runPython(backend, script: "user_events.py", arguments: ["--cursor-file", cursorFile])
            #expect(run.status == 0, "\(run.output)")
            return run.output.split(separator: "\n").compactMap { line in
                guard let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    event["type"] as? String == "user.created"
                else { return nil }
                return (event["user_id"] as? String)?.lowercased()
            }.filter(mine.contains)
        }
        let first = try createGuest()
        #expect(try followedUsers([first]) == [first])
        let second = try createGuest()
        #expect(try followedUsers([first, second]) == [second])
        #expect(try followedUsers([first, second]) == [])
    }

    @Test func aPythonClientCallsAMethodAndReadsItsErrors() async throws {
        let backend = try await BackendProcess.started("content-state")
        defer { backend.process.terminate() }
        let user = UUID().uuidString.lowercased()
        let query = try runPython(backend, method: "content.state.query", params: #"{"user_id":"\#(user)","item_ids":["a"]}"#)
        #expect(query.status == 0, "\(query.output)")
        #expect(query.output.contains(#"{"result": {"items": {"a": {"favorited": false, "read": false, "unliked": false}}}}"#), "\(query.output)")
        let bad = try runPython(backend, method: "content.state.query", params: #"{"user_id":"nope"}"#)
        #expect(bad.status == 1)
        #expect(bad.output.contains(#""code": "bad_request""#), "\(bad.output)")
    }

    @Test func theExampleServiceFiltersWhatTheUserHasRead() async throws {
        let tokens = try await BackendProcess.started("tokens")
        let contentState = try await BackendProcess.started("content-state", token: tokens.token)
        defer {
            tokens.process.terminate()
            contentState.process.terminate()
        }
        let user = UUID()
        let pair = try await tokens.withClient { try await $0.call(Tokens.issue, IssueParams(userID: user)) }
        _ = try await contentState.withClient { try await $0.call(ContentState.readMark, ItemParams(userID: user, itemID: "b")) }
        _ = try await contentState.withClient { try await $0.call(ContentState.unlikesPut, ItemParams(userID: user, itemID: "c")) }
        let environment = [
            "TOKENS_ENDPOINTS": "127.0.0.1:\(tokens.rpcPort)", "CONTENT_STATE_ENDPOINTS": "127.0.0.1:\(contentState.rpcPort)",
            "SERVICE_TOKEN": tokens.token,
        ]
        let filter = try ServiceProcess("read-filter", arguments: [pair.accessToken, "a", "b", "c", "d"], environment: environment)
        #expect(await filter.waitForExit(timeout: .seconds(90)) == 0, "\(filter.stderr)")
        #expect(filter.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == #"{"keep":["a","d"],"user_id":"\#(user.uuidString.lowercased())"}"#)

        let refused = try ServiceProcess("read-filter", arguments: ["not-a-token", "a"], environment: environment)
        #expect(await refused.waitForExit(timeout: .seconds(90)) == 1)
        #expect(refused.stderr.hasPrefix("unauthorized"), "\(refused.stderr)")
    }

    /// Runs the Python client against the backend: its exit status and standard output.
    func runPython(_ backend: BackendProcess, method: String, params: String? = nil) throws -> (status: Int32, output: String) {
        try self.runPython(backend, script: "latchkey_rpc.py", arguments: [method] + (params.map { [$0] } ?? []))
    }

    /// Runs `Examples/python/<script> 127.0.0.1 <port> <arguments>` with the backend's token.
    func runPython(_ backend: BackendProcess, script name: String, arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        let script = Self.repository.appendingPathComponent("Examples/python/\(name)").path
        process.arguments = ["python3", script, "127.0.0.1", "\(backend.rpcPort)"] + arguments
        process.environment = ["SERVICE_TOKEN": backend.token, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
