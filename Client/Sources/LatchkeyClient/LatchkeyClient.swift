import Foundation

/// The app's connection to a latchkey gateway: sign-in, the session's tokens, and the user's
/// content state.
///
/// One client per gateway, for the life of the app. It keeps the tokens in its
/// ``Configuration/tokenStore``, refreshes the access token before it expires (and once when
/// the gateway says `token_expired`, however many requests hit it at once), and reports every
/// sign-in and sign-out on ``authStates()``.
///
/// Every call throws a ``LatchkeyError``, or `CancellationError` when its task is cancelled
/// (the HTTP request is cancelled with it).
///
/// ```swift
/// let client = LatchkeyClient(configuration: .init(baseURL: URL(string: "https://auth.example.com")!))
/// ```
public final class LatchkeyClient: Sendable {
    /// How the client reaches the gateway and keeps its tokens.
    public struct Configuration: Sendable {
        /// The gateway's address, e.g. `https://auth.example.com`.
        public var baseURL: URL
        /// Where the tokens live between launches. By default the Keychain on Apple platforms
        /// (``KeychainTokenStore``, service `<bundle id>.latchkey`, account the gateway's host)
        /// and a 0600 file elsewhere (``FileTokenStore``); ``InMemoryTokenStore`` only when asked.
        public var tokenStore: any TokenStore
        /// What sends the requests; ``URLSessionTransport`` by default.
        public var transport: any HTTPTransport
        /// The device's name as the user's session list shows it ("Ada's iPhone").
        public var deviceName: String?
        /// How long before the access token expires the client refreshes it (60 s, never more
        /// than half of the token's lifetime), counted from when the token arrived.
        public var refreshAhead: TimeInterval
        /// How long one request waits for its answer (30 s).
        public var requestTimeout: TimeInterval
        /// How long one refresh attempt waits for its answer (3 s): a lost answer is retried at
        /// once with a new attempt.
        public var refreshAttemptTimeout: TimeInterval
        /// How long after a refresh starts its attempts may still be sent (8 s). Keep it below the
        /// gateway's `REFRESH_REUSE_GRACE` (10 s by default, 60 s at most), in which a repeat of a
        /// refresh gets the same new pair.
        public var refreshRetryWindow: TimeInterval
        /// Attempts of an idempotent request (GET, PUT, DELETE, the state query, the read batch)
        /// after no answer, a 429 or a 503, the first included (3). Other requests are sent once.
        public var maximumAttempts: Int
        /// The longest `Retry-After` the client waits out by itself (10 s); a longer one reaches
        /// the app as the error.
        public var maximumRetryDelay: TimeInterval
        /// Header fields sent with every request.
        public var additionalHeaders: [String: String]
        /// The key sessions are bound to (DPoP): by default the client's own, in the Secure
        /// Enclave where there is one (``DeviceKeyChoice``).
        public var deviceKey: DeviceKeyChoice
        /// Called when the token store fails to take a pair the client received: the client keeps
        /// it in memory, goes on using it, and saves it again on its next call.
        public var onTokenStoreFailure: (@Sendable (LatchkeyError) -> Void)?
        /// The device's clock: it stamps when a pair arrived, for a later launch to know its age.
        public var now: @Sendable () -> Date
        /// A monotonic clock in seconds (the system's continuous clock): expiry is counted on it,
        /// so a device clock set wrong causes no early or late refresh.
        public var uptime: @Sendable () -> TimeInterval

        public init(
            baseURL: URL, tokenStore: (any TokenStore)? = nil, transport: any HTTPTransport = URLSessionTransport(),
            deviceName: String? = nil, refreshAhead: TimeInterval = 60, requestTimeout: TimeInterval = 30,
            refreshAttemptTimeout: TimeInterval = 3, refreshRetryWindow: TimeInterval = 8, maximumAttempts: Int = 3,
            maximumRetryDelay: TimeInterval = 10, additionalHeaders: [String: String] = [:], deviceKey: DeviceKeyChoice = .automatic,
            onTokenStoreFailure: (@Sendable (LatchkeyError) -> Void)? = nil, now: @escaping @Sendable () -> Date = { Date() },
            uptime: @escaping @Sendable () -> TimeInterval = Configuration.continuousUptime
        ) {
            self.baseURL = baseURL
            self.tokenStore = tokenStore ?? DefaultTokenStore.make(for: baseURL)
            self.transport = transport
            self.deviceName = deviceName
            self.refreshAhead = refreshAhead
            self.requestTimeout = requestTimeout
            self.refreshAttemptTimeout = refreshAttemptTimeout
            self.refreshRetryWindow = refreshRetryWindow
            self.maximumAttempts = max(1, maximumAttempts)
            self.maximumRetryDelay = maximumRetryDelay
            self.additionalHeaders = additionalHeaders
            self.deviceKey = deviceKey
            self.onTokenStoreFailure = onTokenStoreFailure
            self.now = now
            self.uptime = uptime
        }

        private static let origin = ContinuousClock.now

        /// Seconds on `ContinuousClock` since the library was loaded.
        public static func continuousUptime() -> TimeInterval {
            let elapsed = ContinuousClock.now - Self.origin
            return TimeInterval(elapsed.components.seconds) + TimeInterval(elapsed.components.attoseconds) / 1e18
        }
    }

    /// What the client was made with.
    public let configuration: Configuration
    let gateway: GatewayConnection
    let session: SessionController

    /// A client for one gateway. It reads the token store at once, and completes a refresh that
    /// the app's previous run left in flight (docs/client.md, "Tokens and refresh").
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.gateway = GatewayConnection(
            baseURL: configuration.baseURL, transport: configuration.transport, additionalHeaders: configuration.additionalHeaders,
            requestTimeout: configuration.requestTimeout, maximumAttempts: configuration.maximumAttempts,
            maximumRetryDelay: configuration.maximumRetryDelay, proofs: configuration.deviceKey.proofs(with: configuration.tokenStore))
        self.session = SessionController(
            store: configuration.tokenStore, gateway: self.gateway,
            settings: .init(
                refreshAhead: configuration.refreshAhead, refreshAttemptTimeout: configuration.refreshAttemptTimeout,
                refreshRetryWindow: configuration.refreshRetryWindow, now: configuration.now, uptime: configuration.uptime,
                onTokenStoreFailure: configuration.onTokenStoreFailure))
        let session = self.session
        Task { _ = try? await session.settledState() }
    }

    // MARK: - Auth state

    /// The auth state now and every change after it: a sign-in, a sign-out here, a session
    /// ended elsewhere and noticed by a request or a refresh. Any number of subscribers; each
    /// gets the current state first. Ends when the task iterating it is cancelled.
    public func authStates() -> AsyncStream<AuthState> {
        let (stream, continuation) = AsyncStream.makeStream(of: AuthState.self, bufferingPolicy: .bufferingNewest(16))
        let id = UUID()
        let session = self.session
        continuation.onTermination = { _ in Task { await session.unsubscribe(id) } }
        Task { await session.subscribe(id, continuation) }
        return stream
    }

    /// The auth state now (reading the token store on first use).
    public func authState() async throws -> AuthState {
        try await self.session.authState()
    }

    /// The tokens the client holds now, refreshed first if they are about to expire; for an
    /// app that calls its own services with the access token.
    public func validTokens() async throws -> StoredTokens {
        try await self.session.validTokens()
    }

    /// Rotates the tokens now (or joins the refresh in flight), e.g. after the user's rights
    /// changed and the app wants an access token that says so.
    @discardableResult
    public func refreshTokens() async throws -> StoredTokens {
        try await self.session.refreshNow()
    }

    // MARK: - Requests with the session's token

    /// Sends a request with the access token. On `token_expired` it waits for the one shared
    /// refresh and retries once; on `session_revoked` the client signs out. An idempotent
    /// request is also sent again after no answer, a 429 or a 503 (GatewayConnection).
    func authorized(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [String: JSONValue]? = nil,
        repeat: GatewayConnection.Repeat = .idempotent
    ) async throws -> HTTPResponse {
        try Task.checkCancellation()
        let tokens = try await self.session.validTokens()
        let refusal: any Error
        do {
            return try await self.gateway.send(
                method, path, query: query, body: body, bearer: tokens.accessToken, bound: tokens.isBound, repeat: `repeat`)
        } catch {
            refusal = error
        }
        guard case LatchkeyError.tokenExpired = refusal else {
            try await self.session.refused(refusal, accessToken: tokens.accessToken)
            throw refusal
        }
        let renewed = try await self.session.validTokens(replacingExpired: tokens.accessToken)
        do {
            return try await self.gateway.send(
                method, path, query: query, body: body, bearer: renewed.accessToken, bound: renewed.isBound, repeat: `repeat`)
        } catch {
            try await self.session.refused(error, accessToken: renewed.accessToken)
            throw error
        }
    }

    /// ``authorized(_:_:query:body:repeat:)`` and the body decoded as `T`.
    func authorized<T: Decodable>(
        _ type: T.Type, _ method: String, _ path: String, query: [(String, String)] = [], body: [String: JSONValue]? = nil,
        repeat: GatewayConnection.Repeat = .idempotent
    ) async throws -> T {
        try GatewayConnection.decode(type, from: try await self.authorized(method, path, query: query, body: body, repeat: `repeat`))
    }
}
