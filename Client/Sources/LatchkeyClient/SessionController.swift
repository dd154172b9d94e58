import Foundation

/// The client's session: the tokens, loaded once from the ``TokenStore`` and kept in step with
/// it, the one refresh in flight that every caller shares, and the subscribers to auth state
/// changes.
///
/// Every change of the stored tokens happens inside the store's exclusive access (other
/// clients of the same store, in this process or another, wait), and is stored before it is
/// used. `generation` counts sign-ins and sign-outs: a refresh started before one never
/// applies its outcome after it.
actor SessionController {
    /// A pair held in memory, with when it was received by the monotonic clock: expiry is
    /// counted from there, never read off the device's wall clock.
    struct Held: Sendable, Equatable {
        var tokens: StoredTokens
        var receivedUptime: TimeInterval
    }

    enum State {
        /// The store has not been read yet.
        case notLoaded
        /// The store is being read; every caller waits for this one read.
        case loading(Task<StoredTokens?, any Error>)
        case signedOut(SignOutReason)
        case signedIn(Held)
        /// A refresh of these tokens is in flight; every caller that needs tokens awaits it.
        case refreshing(Held, Task<Held, any Error>)
    }

    /// What the client's configuration says about refreshing, and its clocks.
    struct Settings: Sendable {
        var refreshAhead: TimeInterval
        var refreshAttemptTimeout: TimeInterval
        var refreshRetryWindow: TimeInterval
        var now: @Sendable () -> Date
        var uptime: @Sendable () -> TimeInterval
        var onTokenStoreFailure: (@Sendable (LatchkeyError) -> Void)?
    }

    var state = State.notLoaded
    var generation = 0
    /// A pair the store failed to take: held in memory, saved again on the next call.
    var unsaved: StoredTokens?
    private var subscribers: [UUID: AsyncStream<AuthState>.Continuation] = [:]
    let store: any TokenStore
    let gateway: GatewayConnection
    let settings: Settings
    private let storeLock = AsyncLock()

    init(store: any TokenStore, gateway: GatewayConnection, settings: Settings) {
        self.store = store
        self.gateway = gateway
        self.settings = settings
    }

    // MARK: - Tokens for requests

    /// Tokens to send now: refreshed first when the access token expires within the refresh
    /// margin, or when it is `expired`, the one the gateway just refused with `token_expired`
    /// (unless another caller's refresh already replaced it).
    func validTokens(replacingExpired expired: String? = nil) async throws -> StoredTokens {
        await self.saveUnsaved()
        switch try await self.settledState() {
        case .signedIn(let held) where held.tokens.accessToken == expired:
            return try await self.refresh(held, force: true).tokens
        case .signedIn(let held) where self.needsRefresh(held):
            return try await self.refresh(held, force: false).tokens
        case .signedIn(let held):
            return held.tokens
        case .refreshing(_, let task):
            return try await Self.value(of: task).tokens
        case .signedOut:
            throw LatchkeyError.notSignedIn
        case .notLoaded, .loading:
            preconditionFailure("settledState returned an unsettled state")
        }
    }

    /// Rotates the pair now, or joins the refresh in flight.
    func refreshNow() async throws -> StoredTokens {
        switch try await self.settledState() {
        case .signedIn(let held): return try await self.refresh(held, force: true).tokens
        case .refreshing(_, let task): return try await Self.value(of: task).tokens
        case .signedOut: throw LatchkeyError.notSignedIn
        case .notLoaded, .loading: preconditionFailure("settledState returned an unsettled state")
        }
    }

    /// The gateway refused a request made with `accessToken`: `session_revoked` signs the
    /// client out, unless the session changed since (a new sign-in must not be ended by an
    /// old request's answer).
    func refused(_ error: any Error, accessToken: String) async throws {
        guard case LatchkeyError.sessionRevoked = error, self.held?.tokens.accessToken == accessToken else { return }
        try await self.signOut(.sessionRevoked, onlyIfStored: true)
    }

    /// True when the pair is within the refresh margin of the end of its lifetime, counted on
    /// the monotonic clock from when it arrived. Never more than half the lifetime ahead, so a
    /// short-lived token is not refreshed on every call.
    func needsRefresh(_ held: Held) -> Bool {
        let lifetime = held.tokens.lifetime
        let margin = min(self.settings.refreshAhead, lifetime / 2)
        return self.settings.uptime() - held.receivedUptime >= lifetime - margin
    }

    /// A pair read from the store, placed on the monotonic clock by its age on the device's
    /// clock; a receipt time in the future (the clock was set back) counts as expired.
    func held(loaded tokens: StoredTokens) -> Held {
        let age = self.settings.now().timeIntervalSince(tokens.receivedAt)
        let uptime = self.settings.uptime()
        return Held(tokens: tokens, receivedUptime: age >= 0 ? uptime - age : uptime - tokens.lifetime - 1)
    }

    var held: Held? {
        switch self.state {
        case .signedIn(let held), .refreshing(let held, _): held
        default: nil
        }
    }

    /// Runs `body` with the store to itself: the other tasks of this client, and the other
    /// clients of the store, wait.
    func exclusive<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let store = self.store
        return try await self.storeLock.withLock { try await store.withExclusiveAccess(body) }
    }

    /// Tells the app that the store failed to take a pair the client now holds in memory.
    func report(_ error: any Error) {
        self.settings.onTokenStoreFailure?(.tokenStore(error))
    }

    /// Saves the pair the store failed to take, unless it was replaced since.
    private func saveUnsaved() async {
        guard let pending = self.unsaved else { return }
        let store = self.store
        do {
            try await self.exclusive { try await store.save(pending) }
            if self.unsaved == pending { self.unsaved = nil }
        } catch {
            // Reported when it first failed; tried again on the next call.
        }
    }

    static func value(of task: Task<Held, any Error>) async throws -> Held {
        try await task.value
    }

    // MARK: - Sign-in and sign-out

    /// A sign-in succeeded: store its tokens, then hold them and tell the subscribers. When the
    /// store fails, the client holds them in memory, reports it, and saves them on the next call.
    func signedIn(_ tokens: StoredTokens, receivedUptime: TimeInterval) async {
        let store = self.store
        var failure: (any Error)?
        do {
            try await self.exclusive { try await store.save(tokens) }
        } catch {
            failure = error
        }
        self.generation += 1
        self.state = .signedIn(Held(tokens: tokens, receivedUptime: receivedUptime))
        self.unsaved = failure == nil ? nil : tokens
        if let failure { self.report(failure) }
        self.publish(.signedIn(tokens.user))
    }

    /// The gateway sent a newer description of the signed-in user (me, link, unlink).
    func update(_ user: User) async {
        guard var held = self.held, held.tokens.user.id == user.id, held.tokens.user != user else { return }
        held.tokens.user = user
        if case .signedIn = self.state { self.state = .signedIn(held) }
        self.publish(.signedIn(user))
        let (store, tokens) = (self.store, held.tokens)
        do {
            try await self.exclusive {
                // Only over the same pair: another client may have rotated it meanwhile.
                guard try await store.load()?.refreshToken == tokens.refreshToken else { return }
                try await store.save(tokens)
            }
        } catch {
            self.report(error)
        }
    }

    /// Forgets the session: the state first (no caller uses the tokens from now on), then the
    /// store, then the subscribers are told, unless a new sign-in came meanwhile. With
    /// `onlyIfStored`, the store is cleared only if it still holds this client's pair (another
    /// client sharing it may have signed in anew).
    func signOut(_ reason: SignOutReason, onlyIfStored: Bool = false) async throws {
        let previous = self.held?.tokens.refreshToken
        self.generation += 1
        self.state = .signedOut(reason)
        self.unsaved = nil
        let store = self.store
        var failure: (any Error)?
        do {
            try await self.exclusive {
                if onlyIfStored, let stored = try await store.load(), stored.refreshToken != previous { return }
                try await store.clear()
            }
        } catch {
            failure = error
        }
        if case .signedOut(reason) = self.state { self.publish(.signedOut(reason)) }
        if let failure { throw LatchkeyError.tokenStore(failure) }
    }

    /// True when a session is held (after reading the store if needed).
    func isSignedIn() async throws -> Bool {
        switch try await self.settledState() {
        case .signedIn, .refreshing: true
        default: false
        }
    }

    /// The current state as subscribers see it.
    func authState() async throws -> AuthState {
        Self.authState(of: try await self.settledState())
    }

    private static func authState(of state: State) -> AuthState {
        switch state {
        case .signedIn(let held), .refreshing(let held, _): .signedIn(held.tokens.user)
        case .signedOut(let reason): .signedOut(reason)
        case .notLoaded, .loading: .signedOut(.notSignedIn)
        }
    }

    /// The state once the store has been read. A pair stored with a refresh in flight (the app
    /// was suspended or killed during it) still within the refresh window is refreshed at once.
    func settledState() async throws -> State {
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
                    throw LatchkeyError.tokenStore(error)
                }
                guard case .loading = self.state else { continue }
                guard let loaded else {
                    self.state = .signedOut(.notSignedIn)
                    continue
                }
                let held = self.held(loaded: loaded)
                self.state = .signedIn(held)
                if let started = loaded.refreshStartedAt {
                    let elapsed = self.settings.now().timeIntervalSince(started)
                    if elapsed >= 0, elapsed < self.settings.refreshRetryWindow {
                        self.startRefresh(held, force: true, deadline: self.settings.uptime() + self.settings.refreshRetryWindow - elapsed)
                    }
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
    func publish(_ state: AuthState) {
        for (id, continuation) in self.subscribers {
            if case .terminated = continuation.yield(state) { self.subscribers[id] = nil }
        }
    }
}
