import Foundation

/// The client's session: the tokens, loaded once from the ``TokenStore`` and kept in step with
/// it, the one refresh in flight that every caller shares, and the subscribers to auth state
/// changes.
actor SessionController {
    private enum State {
        /// The store has not been read yet.
        case notLoaded
        /// The store is being read; every caller waits for this one read.
        case loading(Task<StoredTokens?, any Error>)
        case signedOut(SignOutReason)
        case signedIn(StoredTokens)
        /// A refresh of these tokens is in flight; every caller that needs tokens awaits it.
        case refreshing(StoredTokens, Task<StoredTokens, any Error>)
    }

    private var state = State.notLoaded
    private var subscribers: [UUID: AsyncStream<AuthState>.Continuation] = [:]
    private let store: any TokenStore
    private let gateway: GatewayConnection
    private let refreshAhead: TimeInterval
    private let now: @Sendable () -> Date

    init(store: any TokenStore, gateway: GatewayConnection, refreshAhead: TimeInterval, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.gateway = gateway
        self.refreshAhead = refreshAhead
        self.now = now
    }

    // MARK: - Tokens for requests

    /// Tokens to send now: refreshed first when the access token expires within the refresh
    /// margin, or when it is `expired`, the one the gateway just refused with `token_expired`
    /// (unless another caller's refresh already replaced it).
    func validTokens(replacingExpired expired: String? = nil) async throws(LatchkeyError) -> StoredTokens {
        switch try await self.settledState() {
        case .signedIn(let tokens) where tokens.accessToken == expired || self.needsRefresh(tokens):
            return try await self.refresh(tokens)
        case .signedIn(let tokens):
            return tokens
        case .refreshing(_, let task):
            return try await Self.value(of: task)
        case .signedOut:
            throw .notSignedIn
        case .notLoaded, .loading:
            preconditionFailure("settledState returned an unsettled state")
        }
    }

    /// The gateway refused a request made with `accessToken`: `session_revoked` signs the
    /// client out, unless the session changed since (a new sign-in must not be ended by an
    /// old request's answer).
    func refused(_ error: LatchkeyError, accessToken: String) async throws(LatchkeyError) {
        guard case .sessionRevoked = error, case .signedIn(let tokens) = self.state, tokens.accessToken == accessToken else { return }
        try await self.signOut(.sessionRevoked)
    }

    private func needsRefresh(_ tokens: StoredTokens) -> Bool {
        // Never more than half the token's lifetime ahead, so a short-lived token is not
        // refreshed on every call.
        let lifetime = tokens.expiresAt.timeIntervalSince(tokens.receivedAt)
        let margin = min(self.refreshAhead, max(lifetime, 0) / 2)
        return self.now() >= tokens.expiresAt.addingTimeInterval(-margin)
    }

    // MARK: - Refresh, single-flight

    /// Starts the one refresh of `tokens` and waits for it with every other caller.
    private func refresh(_ tokens: StoredTokens) async throws(LatchkeyError) -> StoredTokens {
        let task = Task { try await self.performRefresh(tokens) }
        self.state = .refreshing(tokens, task)
        return try await Self.value(of: task)
    }

    /// Runs on the actor: the request suspends it, and the outcome is applied only if the
    /// client is still refreshing these tokens (a sign-out or a new sign-in meanwhile wins).
    private func performRefresh(_ tokens: StoredTokens) async throws(LatchkeyError) -> StoredTokens {
        let response: TokenResponse
        do {
            response = try await self.gateway.refresh(tokens.refreshToken)
        } catch {
            guard case .refreshing(let current, _) = self.state, current == tokens else { return try self.tokensAfterInterruptedRefresh() }
            if Self.endsSession(error) {
                try await self.signOut(.refreshRejected)
            } else {
                self.state = .signedIn(tokens)
            }
            throw error
        }
        let renewed = response.tokens(receivedAt: self.now())
        guard case .refreshing(let current, _) = self.state, current == tokens else { return try self.tokensAfterInterruptedRefresh() }
        self.state = .signedIn(renewed)
        if renewed.user != tokens.user { self.publish(.signedIn(renewed.user)) }
        do {
            try await self.store.save(renewed)
        } catch {
            throw .tokenStore(error)
        }
        return renewed
    }

    /// What the callers of a refresh get when the session changed while it ran.
    private func tokensAfterInterruptedRefresh() throws(LatchkeyError) -> StoredTokens {
        if case .signedIn(let tokens) = self.state { return tokens }
        throw .notSignedIn
    }

    /// A refresh refused by the gateway (any 4xx but 429) ends the session; no answer, a 429
    /// or a 5xx leaves it for the next try.
    private static func endsSession(_ error: LatchkeyError) -> Bool {
        guard let status = error.detail?.status else { return false }
        return (400..<500).contains(status) && status != 429
    }

    private static func value(of task: Task<StoredTokens, any Error>) async throws(LatchkeyError) -> StoredTokens {
        do {
            return try await task.value
        } catch let error as LatchkeyError {
            throw error
        } catch {
            throw .transport(error)
        }
    }

    // MARK: - Sign-in and sign-out

    /// A sign-in succeeded: store its tokens, then hold them and tell the subscribers. When the
    /// store fails the sign-in fails, and the client stays as it was.
    func signedIn(_ tokens: StoredTokens) async throws(LatchkeyError) {
        do {
            try await self.store.save(tokens)
        } catch {
            throw .tokenStore(error)
        }
        self.state = .signedIn(tokens)
        self.publish(.signedIn(tokens.user))
    }

    /// The gateway sent a newer description of the signed-in user (me, link, unlink).
    func update(_ user: User) async throws(LatchkeyError) {
        guard case .signedIn(var tokens) = self.state, tokens.user.id == user.id, tokens.user != user else { return }
        tokens.user = user
        self.state = .signedIn(tokens)
        self.publish(.signedIn(user))
        do {
            try await self.store.save(tokens)
        } catch {
            throw .tokenStore(error)
        }
    }

    /// Forgets the session: the state first (no caller uses the tokens from now on), then the
    /// store, then the subscribers are told, unless a new sign-in came meanwhile.
    func signOut(_ reason: SignOutReason) async throws(LatchkeyError) {
        self.state = .signedOut(reason)
        do {
            try await self.store.clear()
        } catch {
            throw .tokenStore(error)
        }
        if case .signedOut(reason) = self.state { self.publish(.signedOut(reason)) }
    }

    /// True when a session is held (after reading the store if needed).
    func isSignedIn() async throws(LatchkeyError) -> Bool {
        switch try await self.settledState() {
        case .signedIn, .refreshing: true
        default: false
        }
    }

    /// The current state as subscribers see it.
    func authState() async throws(LatchkeyError) -> AuthState {
        Self.authState(of: try await self.settledState())
    }

    private static func authState(of state: State) -> AuthState {
        switch state {
        case .signedIn(let tokens), .refreshing(let tokens, _): .signedIn(tokens.user)
        case .signedOut(let reason): .signedOut(reason)
        case .notLoaded, .loading: .signedOut(.notSignedIn)
        }
    }

    /// The state once the store has been read.
    private func settledState() async throws(LatchkeyError) -> State {
        while true {
            switch self.state {
            case .notLoaded:
                let store = self.store
                self.state = .loading(Task { try await store.load() })
            case .loading(let task):
                let loaded: StoredTokens?
                do {
                    loaded = try await task.value
                } catch {
                    if case .loading = self.state { self.state = .notLoaded }
                    throw .tokenStore(error)
                }
                if case .loading = self.state {
                    self.state = loaded.map(State.signedIn) ?? .signedOut(.notSignedIn)
                }
            case .signedOut, .signedIn, .refreshing:
                return self.state
            }
        }
    }

    // MARK: - Subscribers

    func subscribe(_ id: UUID, _ continuation: AsyncStream<AuthState>.Continuation) async {
        self.subscribers[id] = continuation
        if let state = try? await self.authState(), self.subscribers[id] != nil { continuation.yield(state) }
    }

    func unsubscribe(_ id: UUID) {
        self.subscribers[id] = nil
    }

    /// Tells every subscriber; one whose stream ended is dropped.
    private func publish(_ state: AuthState) {
        for (id, continuation) in self.subscribers {
            if case .terminated = continuation.yield(state) { self.subscribers[id] = nil }
        }
    }
}
