import Foundation
import Testing

@testable import LatchkeyClient

/// A transport that answers from a closure and records every request, so a test decides what
/// the gateway says and checks what the client sent.
final class StubTransport: HTTPTransport {
    typealias Handler = @Sendable (HTTPRequest) async throws -> HTTPResponse
    private let handler: Handler
    private let log = Locked<[HTTPRequest]>([])

    init(_ handler: @escaping Handler) {
        self.handler = handler
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        self.log.withLock { $0.append(request) }
        return try await self.handler(request)
    }

    var requests: [HTTPRequest] { self.log.withLock { $0 } }

    /// The requests whose path is `path` (and method `method`, when given).
    func requests(_ method: String? = nil, _ path: String) -> [HTTPRequest] {
        self.requests.filter { $0.url.path == path && (method == nil || $0.method == method) }
    }
}

/// A value behind a lock (the package's floor predates `Mutex`).
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        self.lock.lock()
        defer { self.lock.unlock() }
        return try body(&self.value)
    }
}

/// The device's clocks as a test moves them by hand: the wall clock (`now`, which the user may
/// set wrong) and the monotonic one (`uptime`).
final class TestClock: Sendable {
    private let current = Locked((wall: Date(timeIntervalSince1970: 1_800_000_000), uptime: TimeInterval(1000)))

    var now: Date { self.current.withLock { $0.wall } }
    var uptime: TimeInterval { self.current.withLock { $0.uptime } }

    /// Time passes: both clocks move.
    func advance(by seconds: TimeInterval) {
        self.current.withLock {
            $0.wall = $0.wall.addingTimeInterval(seconds)
            $0.uptime += seconds
        }
    }

    /// The user sets the device's clock: only the wall clock moves.
    func setWallClock(by seconds: TimeInterval) {
        self.current.withLock { $0.wall = $0.wall.addingTimeInterval(seconds) }
    }
}

/// The gateway's answers as the tests need them.
enum Reply {
    static var userJSON: [String: Any] {
        [
            "id": "5f0c0000-0000-4000-8000-000000000001", "email": "ada@example.com", "email_verified": true,
            "display_name": "Ada Lovelace", "is_admin": false, "providers": ["apple"],
            "created_at": "2026-11-23T10:04:05.123Z", "updated_at": "2026-11-23T10:04:05.123Z",
        ]
    }

    static func json(_ status: Int, _ object: Any, headers: [String: String] = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        return HTTPResponse(status: status, headers: headers, body: try! JSONSerialization.data(withJSONObject: object))
    }

    static func error(_ status: Int, _ code: String, requestID: String = "req-1", headers: [String: String] = [:]) -> HTTPResponse {
        json(status, ["error": ["code": code, "message": "message of \(code)", "request_id": requestID]], headers: headers)
    }

    static let noContent = HTTPResponse(status: 204)

    /// A token response whose access token expires `expiresIn` seconds after `now`.
    static func tokens(access: String, refresh: String, now: Date, expiresIn: TimeInterval = 900, isNewUser: Bool? = nil) -> HTTPResponse {
        var body: [String: Any] = [
            "access_token": access, "token_type": "Bearer", "expires_in": Int(expiresIn),
            "expires_at": RFC3339.string(from: now.addingTimeInterval(expiresIn)), "refresh_token": refresh,
            "refresh_expires_at": RFC3339.string(from: now.addingTimeInterval(2_592_000)), "user": userJSON,
        ]
        if let isNewUser { body["is_new_user"] = isNewUser }
        return json(200, body, headers: ["Cache-Control": "no-store"])
    }
}

extension HTTPRequest {
    /// The JSON body as an object (empty when there is none).
    var json: [String: Any] {
        self.body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] } ?? [:]
    }

    var bearer: String? {
        self.headers["Authorization"].map { String($0.dropFirst("Bearer ".count)) }
    }
}

/// Tokens a test starts signed in with, issued at `now` and expiring `expiresIn` later.
func storedTokens(access: String = "access-1", refresh: String = "refresh-1", now: Date, expiresIn: TimeInterval = 900) throws -> StoredTokens {
    let user = try JSONCoding.decoder().decode(User.self, from: JSONSerialization.data(withJSONObject: Reply.userJSON))
    return StoredTokens(
        accessToken: access, refreshToken: refresh, expiresAt: now.addingTimeInterval(expiresIn),
        refreshExpiresAt: now.addingTimeInterval(2_592_000), receivedAt: now, user: user)
}

/// A client on a stub transport and an in-memory store. `refreshRetryWindow` 0 sends a refresh
/// once (the test clock does not move while the client waits).
func makeClient(
    _ transport: StubTransport, clock: TestClock, store: any TokenStore = InMemoryTokenStore(), deviceName: String? = nil,
    refreshRetryWindow: TimeInterval = 8, maximumAttempts: Int = 3, requestTimeout: TimeInterval = 30,
    onTokenStoreFailure: (@Sendable (LatchkeyError) -> Void)? = nil
) -> LatchkeyClient {
    LatchkeyClient(
        configuration: .init(
            baseURL: URL(string: "https://gateway.test")!, tokenStore: store, transport: transport, deviceName: deviceName,
            requestTimeout: requestTimeout, refreshAttemptTimeout: 1, refreshRetryWindow: refreshRetryWindow,
            maximumAttempts: maximumAttempts, additionalHeaders: ["X-Test": "1"], onTokenStoreFailure: onTokenStoreFailure,
            now: { clock.now }, uptime: { clock.uptime }))
}

/// Holds every arriving task until `count` have arrived, then lets them all go: a test's
/// concurrent requests are all in flight before any is answered.
actor Barrier {
    private let count: Int
    private var waiting: [CheckedContinuation<Void, Never>] = []
    private var open = false

    init(count: Int) {
        self.count = count
    }

    func arrive() async {
        if self.open { return }
        if self.waiting.count + 1 >= self.count {
            self.open = true
            for continuation in self.waiting { continuation.resume() }
            self.waiting = []
            return
        }
        await withCheckedContinuation { self.waiting.append($0) }
    }
}
