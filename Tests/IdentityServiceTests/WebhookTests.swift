import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import IdentityAPI
@testable import IdentityService
import Logging
import Postgres
import ServiceProtocol
import Synchronization
import TestSupport
import Testing

/// Webhooks (DESIGN.md section 9.4): a receiver that fails its first attempts and then goes
/// down for a while still gets every event, each signed, each user's in order.
@Suite(.timeLimit(.minutes(3))) struct WebhookTests {
    static let secret = "webhook-test-secret-0123456789"

    @Test func aFlakyReceiverGetsEveryEventSignedAndInOrderPerUser() async throws {
        let port = try freePort()
        let url = "http://127.0.0.1:\(port)/hooks"
        let receiver = FlakyReceiver(failFirst: 3)
        try await IdentityHarness.run(environment: ["WEBHOOK_URLS": url, "WEBHOOK_SECRET": Self.secret, "WEBHOOK_MAX_BACKOFF": "1"]) { harness in
            var users: [UUID] = []
            try await receiver.whileUp(port: port) {
                // The dispatcher starts its receiver at the feed's end: wait until it has.
                try await waitUntil("the receiver's cursor") {
                    try await !harness.postgres.query("SELECT 1 FROM identity.webhook_cursors WHERE url = $1", [.text(url)]).isEmpty
                }
                users = try await (0..<3).asyncMap { _ in try await harness.client.call(Identity.createGuest, Empty()).id }
                for user in users {
                    _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user, active: false))
                }
                // The first attempts were refused (500); then some went through.
                try await waitUntil("the first deliveries") { receiver.received(of: Set(users)).count >= 2 }
            }
            // Down for a while (connections refused) while the users change on.
            for user in users {
                _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user, active: true))
            }
            try await Task.sleep(for: .seconds(2))
            try await receiver.whileUp(port: port) {
                for user in users {
                    _ = try await harness.client.call(Identity.setActive, SetActiveParams(userID: user, active: false))
                }
                try await waitUntil("every event") { Set(receiver.received(of: Set(users)).map(\.id)).count == users.count * 4 }
            }
            #expect(receiver.badSignatures == 0)
            #expect(receiver.requests > users.count * 4)  // the refused attempts were retried
            for user in users {
                // At least once: a repeat may come, but no event before one made earlier.
                let firsts = Self.firstOccurrences(receiver.received(of: [user]).map { ($0.id, $0.type) })
                #expect(firsts == ["user.created", "user.deactivated", "user.activated", "user.deactivated"])
            }
        }
    }

    /// The types of `events` in the order each id first arrived.
    static func firstOccurrences(_ events: [(String, String)]) -> [String] {
        var seen: Set<String> = []
        return events.compactMap { id, type in seen.insert(id).inserted ? type : nil }
    }
}

/// A webhook receiver that answers 500 to its first `failFirst` requests, then 204; it checks
/// every signature and keeps the events in the order they arrived.
final class FlakyReceiver: Sendable {
    let failFirst: Int
    private let state = Mutex<(requests: Int, events: [[String: Any]], badSignatures: Int)>((0, [], 0))

    init(failFirst: Int) {
        self.failFirst = failFirst
    }

    var badSignatures: Int { self.state.withLock { $0.badSignatures } }
    var requests: Int { self.state.withLock { $0.requests } }

    /// The events of `users` received, in arrival order (a repeat included).
    func received(of users: Set<UUID>) -> [(id: String, type: String, user: UUID)] {
        self.state.withLock { state in
            state.events.compactMap { event in
                guard let id = event["id"] as? String, let type = event["type"] as? String,
                    let user = (event["user_id"] as? String).flatMap(UUID.init(uuidString:)), users.contains(user)
                else { return nil }
                return (id, type, user)
            }
        }
    }

    func handle(body: [UInt8], signature: String?) -> HTTPResponse.Status {
        let valid = signature.map { Self.verify(body: body, header: $0) } ?? false
        return self.state.withLock { state in
            state.requests += 1
            guard valid else {
                state.badSignatures += 1
                return .badRequest
            }
            guard state.requests > self.failFirst else { return .internalServerError }
            if let event = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] { state.events.append(event) }
            return .noContent
        }
    }

    /// `t=<unix>,v1=<hex HMAC-SHA256 of "t.body">` with the shared secret, and a recent `t`.
    static func verify(body: [UInt8], header: String) -> Bool {
        var fields: [String: String] = [:]
        for part in header.split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[String(pair[0])] = String(pair[1]) }
        }
        guard let time = fields["t"].flatMap(Int.init), let given = fields["v1"],
            abs(Int(Date().timeIntervalSince1970) - time) < 300
        else { return false }
        let mac = HMAC<SHA256>.authenticationCode(
            for: Array("\(time).".utf8) + body, using: SymmetricKey(data: Array(WebhookTests.secret.utf8)))
        let expected = mac.map { String(format: "%02x", $0) }.joined()
        return given == expected
    }

    /// Serves on `port` while `body` runs; then the port is closed (connections refused).
    func whileUp(port: Int, _ body: () async throws -> Void) async throws {
        let router = Router()
        router.post("hooks") { request, _ -> Response in
            let bytes = try await request.body.collect(upTo: 1 << 20)
            return Response(status: self.handle(body: Array(buffer: bytes), signature: request.headers[HTTPField.Name("Latchkey-Signature")!]))
        }
        var logger = Logger(label: "webhook-receiver")
        logger.logLevel = .warning
        let (running, continuation) = AsyncStream.makeStream(of: Void.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { _ in continuation.yield() }, logger: logger)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.run() }
            var iterator = running.makeAsyncIterator()
            _ = await iterator.next()
            defer { group.cancelAll() }
            try await body()
        }
    }
}
