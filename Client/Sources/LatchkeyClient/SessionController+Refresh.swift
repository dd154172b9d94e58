import Foundation

/// The refresh: one at a time per client and per store, stored before it is sent and before
/// its result is used, and sent again at once when its answer is lost, within the window in
/// which the gateway answers a repeat with the same new pair (`REFRESH_REUSE_GRACE`).
extension SessionController {
    /// What a refresh came to, decided inside the store's exclusive access.
    enum RefreshOutcome: Sendable {
        /// Another client sharing the store had saved a newer pair: used without a request.
        case adopted(Held)
        /// The gateway rotated the pair; `saveFailure` when the store did not take it.
        case renewed(Held, saveFailure: (any Error)?)
        /// The gateway refused the refresh token: the session is over.
        case rejected(LatchkeyError)
        /// The store is empty: another client sharing it signed out.
        case signedOutElsewhere
        /// No answer within the window (or a 429/5xx to the end): keep `Held` and try later.
        case failed(LatchkeyError, Held)
    }

    /// Starts the one refresh of `held` and waits for it with every other caller.
    func refresh(_ held: Held, force: Bool) async throws -> Held {
        try await Self.value(of: self.startRefresh(held, force: force, deadline: nil))
    }

    /// Starts the refresh as a task of its own: a caller that is cancelled does not cancel it,
    /// so an answer on its way is never thrown away. `deadline` (monotonic) ends its retries;
    /// nil is the refresh window from now.
    @discardableResult
    func startRefresh(_ held: Held, force: Bool, deadline: TimeInterval?) -> Task<Held, any Error> {
        let generation = self.generation
        let task = Task { try await self.performRefresh(held, force: force, deadline: deadline, generation: generation) }
        self.state = .refreshing(held, task)
        return task
    }

    /// Runs the refresh inside the store's exclusive access, then applies its outcome, unless a
    /// sign-in or sign-out happened meanwhile (that one wins).
    private func performRefresh(_ held: Held, force: Bool, deadline: TimeInterval?, generation: Int) async throws -> Held {
        let outcome: RefreshOutcome
        do {
            outcome = try await self.exclusive { try await self.refreshHoldingStore(held, force: force, deadline: deadline) }
        } catch {
            outcome = .failed(.tokenStore(error), held)
        }
        guard generation == self.generation else {
            if case .signedIn(let current) = self.state { return current }
            if case .refreshing(_, let task) = self.state { return try await Self.value(of: task) }
            throw LatchkeyError.notSignedIn
        }
        switch outcome {
        case .adopted(let adopted):
            self.apply(adopted, replacing: held)
            return adopted
        case .renewed(let renewed, let saveFailure):
            self.apply(renewed, replacing: held)
            if let saveFailure {
                self.unsaved = renewed.tokens
                self.report(saveFailure)
            } else {
                self.unsaved = nil
            }
            return renewed
        case .rejected(let error):
            self.endSession(.refreshRejected)
            throw error
        case .signedOutElsewhere:
            self.endSession(.signedOut)
            throw LatchkeyError.notSignedIn
        case .failed(let error, let kept):
            self.state = .signedIn(kept)
            throw error
        }
    }

    private func apply(_ new: Held, replacing old: Held) {
        self.state = .signedIn(new)
        if new.tokens.user != old.tokens.user { self.publish(.signedIn(new.tokens.user)) }
    }

    /// The store already says so (cleared inside the exclusive access): only memory and the subscribers.
    private func endSession(_ reason: SignOutReason) {
        self.generation += 1
        self.state = .signedOut(reason)
        self.unsaved = nil
        self.publish(.signedOut(reason))
    }

    /// Inside the store's exclusive access: adopt a newer pair another client saved; otherwise
    /// mark the refresh in flight in the store, send it (again at once when no answer comes,
    /// until the deadline), and store the new pair before anyone uses it.
    private func refreshHoldingStore(_ held: Held, force: Bool, deadline: TimeInterval?) async throws -> RefreshOutcome {
        var current = held
        if self.unsaved?.refreshToken != held.tokens.refreshToken {
            // The store is the truth, unless the pair held here is one it failed to take.
            do {
                switch try await self.store.load() {
                case .some(let stored) where stored.refreshToken != held.tokens.refreshToken:
                    let adopted = self.held(loaded: stored)
                    if force || !self.needsRefresh(adopted) { return .adopted(adopted) }
                    current = adopted
                case .some:
                    break
                case .none:
                    return .signedOutElsewhere
                }
            } catch {
                self.report(error)
            }
        }

        // Stored before the request goes out: a launch after the app was killed now knows.
        if deadline == nil || current.tokens.refreshStartedAt == nil {
            var marked = current.tokens
            marked.refreshStartedAt = self.settings.now()
            do {
                try await self.store.save(marked)
                current.tokens = marked
            } catch {
                self.report(error)
            }
        }
        let end = deadline ?? self.settings.uptime() + self.settings.refreshRetryWindow
        switch await self.sendRefresh(current.tokens.refreshToken, until: end) {
        case .success(let (response, receivedUptime)):
            let renewed = Held(tokens: response.tokens(receivedAt: self.settings.now()), receivedUptime: receivedUptime)
            do {
                try await self.store.save(renewed.tokens)
                return .renewed(renewed, saveFailure: nil)
            } catch {
                return .renewed(renewed, saveFailure: error)
            }
        case .failure(let error) where Self.endsSession(error):
            do { try await self.store.clear() } catch { self.report(error) }
            return .rejected(error)
        case .failure(let error):
            // The mark stays: a relaunch within the window sends this refresh again.
            return .failed(error, current)
        }
    }

    /// Sends the refresh, each attempt with the short refresh timeout, again at once after no
    /// answer (or after a 429's or 503's `Retry-After`), as long as an attempt can start
    /// before `end`. The gateway answers every attempt within its grace with the same pair.
    private func sendRefresh(_ refreshToken: String, until end: TimeInterval) async -> Result<(TokenResponse, TimeInterval), LatchkeyError> {
        var attempt = 1
        while true {
            do {
                let response = try await self.gateway.refresh(refreshToken, timeout: self.settings.refreshAttemptTimeout)
                return .success((response, self.settings.uptime()))
            } catch {
                let failure = error as? LatchkeyError ?? .transport(error)
                if Self.endsSession(failure) { return .failure(failure) }
                let delay = failure.detail?.retryAfter ?? (attempt == 1 ? 0 : min(0.1 * Double(attempt), 1))
                guard self.settings.uptime() + delay < end else { return .failure(failure) }
                if delay > 0 { try? await Task.sleep(for: .seconds(delay)) }
                attempt += 1
            }
        }
    }

    /// A refresh refused by the gateway (any 4xx but 429) ends the session; no answer, a 429
    /// or a 5xx leaves it for the next try.
    static func endsSession(_ error: LatchkeyError) -> Bool {
        guard let status = error.detail?.status else { return false }
        return (400..<500).contains(status) && status != 429
    }
}
