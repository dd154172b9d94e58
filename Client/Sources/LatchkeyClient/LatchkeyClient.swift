import Foundation

/// The app's connection to a latchkey gateway: sign-in, the session's tokens, and the user's
/// content state.
///
/// One client per gateway, for the life of the app. It keeps the tokens in its
/// ``Configuration/tokenStore``, refreshes the access token before it expires (and once when
/// the gateway says `token_expired`, however many requests hit it at once), and reports every
/// sign-in and sign-out on ``authStates()``.
///
/// ```swift
/// let client = LatchkeyClient(configuration: .init(
///     baseURL: URL(string: "https://auth.example.com")!,
///     tokenStore: KeychainTokenStore(service: "com.example.app.latchkey")))
/// ```
public final class LatchkeyClient: Sendable {
    /// How the client reaches the gateway and keeps its tokens.
    public struct Configuration: Sendable {
        /// The gateway's address, e.g. `https://auth.example.com`.
        public var baseURL: URL
        /// Where the tokens live between launches; ``KeychainTokenStore`` in an app.
        public var tokenStore: any TokenStore
        /// What sends the requests; ``URLSessionTransport`` by default.
        public var transport: any HTTPTransport
        /// The device's name as the user's session list shows it ("Ada's iPhone").
        public var deviceName: String?
        /// How long before the access token's `expires_at` the client refreshes it (60 s, never
        /// more than half of the token's lifetime).
        public var refreshAhead: TimeInterval
        /// Header fields sent with every request.
        public var additionalHeaders: [String: String]
        /// The clock the refresh margin is measured with.
        public var now: @Sendable () -> Date

        public init(
            baseURL: URL, tokenStore: any TokenStore = InMemoryTokenStore(), transport: any HTTPTransport = URLSessionTransport(),
            deviceName: String? = nil, refreshAhead: TimeInterval = 60, additionalHeaders: [String: String] = [:],
            now: @escaping @Sendable () -> Date = { Date() }
        ) {
            self.baseURL = baseURL
            self.tokenStore = tokenStore
            self.transport = transport
            self.deviceName = deviceName
            self.refreshAhead = refreshAhead
            self.additionalHeaders = additionalHeaders
            self.now = now
        }
    }

    /// What the client was made with.
    public let configuration: Configuration
    let gateway: GatewayConnection
    let session: SessionController

    /// A client for one gateway; it reads the token store on first use.
    public init(configuration: Configuration) {
        self.configuration = configuration
        self.gateway = GatewayConnection(
            baseURL: configuration.baseURL, transport: configuration.transport, additionalHeaders: configuration.additionalHeaders)
        self.session = SessionController(
            store: configuration.tokenStore, gateway: self.gateway, refreshAhead: configuration.refreshAhead, now: configuration.now)
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
    public func authState() async throws(LatchkeyError) -> AuthState {
        try await self.session.authState()
    }

    /// The tokens the client holds now, refreshed first if they are about to expire; for an
    /// app that calls its own services with the access token.
    public func validTokens() async throws(LatchkeyError) -> StoredTokens {
        try await self.session.validTokens()
    }

    // MARK: - Requests with the session's token

    /// Sends a request with the access token. On `token_expired` it waits for the one shared
    /// refresh and retries once; on `session_revoked` the client signs out.
    func authorized(
        _ method: String, _ path: String, query: [(String, String)] = [], body: [String: JSONValue]? = nil
    ) async throws(LatchkeyError) -> HTTPResponse {
        let tokens = try await self.session.validTokens()
        let refusal: LatchkeyError
        do {
            return try await self.gateway.send(method, path, query: query, body: body, bearer: tokens.accessToken)
        } catch {
            refusal = error
        }
        guard case .tokenExpired = refusal else {
            try await self.session.refused(refusal, accessToken: tokens.accessToken)
            throw refusal
        }
        let renewed = try await self.session.validTokens(replacingExpired: tokens.accessToken)
        do {
            return try await self.gateway.send(method, path, query: query, body: body, bearer: renewed.accessToken)
        } catch {
            try await self.session.refused(error, accessToken: renewed.accessToken)
            throw error
        }
    }

    /// ``authorized(_:_:query:body:)`` and the body decoded as `T`.
    func authorized<T: Decodable>(
        _ type: T.Type, _ method: String, _ path: String, query: [(String, String)] = [], body: [String: JSONValue]? = nil
    ) async throws(LatchkeyError) -> T {
        try GatewayConnection.decode(type, from: try await self.authorized(method, path, query: query, body: body))
    }
}
