import IdentityAPI
import CoreMetrics
import FoundationEssentials
import JWTKit
import Logging

/// The keys of one provider, fetched from its JWKS URL and kept as long as its
/// `Cache-Control: max-age` allows. An unknown `kid` causes a refetch, but at most one per
/// `refetchInterval` (and concurrent callers share one fetch), so tokens with made-up `kid`s
/// cannot make the service hammer the provider. Expired keys are still used when a refresh fails.
/// Each fetch counts in `identity_jwks_fetches_total{provider,outcome}` (`ok` or `failed`).
actor JWKSCache {
    /// Bounds applied to the provider's `max-age`.
    static let minimumLifetime: TimeInterval = 60
    static let maximumLifetime: TimeInterval = 86_400
    static let defaultLifetime: TimeInterval = 3600

    let provider: IdentityProvider
    private let url: String
    private let http: ProviderHTTP
    private let clock: IdentityClock
    private let refetchInterval: TimeInterval
    private let logger: Logger

    private var keySet: ProviderKeySet?
    private var lastAttempt: Date?
    private var lastAttemptFailed = false
    private var inFlight: Task<ProviderKeySet, any Error>?
    /// Fetches started, for metrics and tests.
    private(set) var fetchCount = 0

    init(
        provider: IdentityProvider, url: String, http: ProviderHTTP, clock: IdentityClock,
        refetchInterval: TimeInterval, logger: Logger
    ) {
        self.provider = provider
        self.url = url
        self.http = http
        self.clock = clock
        self.refetchInterval = refetchInterval
        self.logger = logger
    }

    /// The key collection that holds `kid`, and the algorithm that key is pinned to.
    func key(for kid: String) async throws(IdentityError) -> (keys: JWTKeyCollection, algorithm: String) {
        let now = self.clock.now()
        if let set = self.keySet, let algorithm = set.algorithms[kid] {
            if now < set.expiresAt || !self.mayFetch(now) { return (set.keys, algorithm) }
            // Stale: refresh, but fall back to the keys we have if the provider is down.
            do {
                let fresh = try await self.refreshed(now)
                guard let pinned = fresh.algorithms[kid] else { throw IdentityError.invalidToken(reason: "key withdrawn") }
                return (fresh.keys, pinned)
            } catch let error as IdentityError {
                guard case .providerUnavailable = error else { throw error }
                self.logger.warning("Using expired provider keys: refresh failed", metadata: ["provider": "\(self.provider)"])
                return (set.keys, algorithm)
            } catch {
                return (set.keys, algorithm)
            }
        }
        guard self.mayFetch(now) else {
            if self.lastAttemptFailed { throw .providerUnavailable(self.provider, reason: "JWKS fetch failed recently") }
            throw .invalidToken(reason: "unknown kid")
        }
        let fresh: ProviderKeySet
        do {
            fresh = try await self.refreshed(now)
        } catch let error as IdentityError {
            throw error
        } catch {
            throw .providerUnavailable(self.provider, reason: "JWKS fetch failed")
        }
        guard let algorithm = fresh.algorithms[kid] else { throw .invalidToken(reason: "unknown kid") }
        return (fresh.keys, algorithm)
    }

    private func mayFetch(_ now: Date) -> Bool {
        guard let lastAttempt = self.lastAttempt else { return true }
        return self.inFlight != nil || now.timeIntervalSince(lastAttempt) >= self.refetchInterval
    }

    /// A freshly fetched set; callers arriving while a fetch runs share it.
    private func refreshed(_ now: Date) async throws -> ProviderKeySet {
        if let inFlight = self.inFlight { return try await inFlight.value }
        self.lastAttempt = now
        self.fetchCount += 1
        let task = Task { [url, http, provider, clock, logger] in
            try await Self.fetch(url: url, http: http, provider: provider, clock: clock, logger: logger)
        }
        self.inFlight = task
        defer { self.inFlight = nil }
        do {
            let set = try await task.value
            self.keySet = set
            self.lastAttemptFailed = false
            self.countFetch("ok")
            self.logger.info(
                "Fetched provider keys",
                metadata: ["provider": "\(self.provider)", "jwks.kids": "\(set.algorithms.keys.sorted())"])
            return set
        } catch {
            self.lastAttemptFailed = true
            self.countFetch("failed")
            self.logger.warning("Provider JWKS fetch failed", metadata: ["provider": "\(self.provider)", "error": "\(error)"])
            throw error
        }
    }

    private func countFetch(_ outcome: String) {
        Counter(label: "identity_jwks_fetches_total", dimensions: [("provider", self.provider.rawValue), ("outcome", outcome)])
            .increment()
    }

    private static func fetch(
        url: String, http: ProviderHTTP, provider: IdentityProvider, clock: IdentityClock, logger: Logger
    ) async throws -> ProviderKeySet {
        let reply = try await http.get(url, headers: [("Accept", "application/json")], provider: provider)
        guard reply.status == 200 else {
            throw IdentityError.providerUnavailable(provider, reason: "JWKS answered \(reply.status)")
        }
        let jwks: JWKS
        do {
            jwks = try reply.decode(JWKS.self)
        } catch {
            throw IdentityError.providerUnavailable(provider, reason: "JWKS is not valid JSON")
        }
        let maxAge = CacheControl.maxAge(reply.headers.first(name: "cache-control")) ?? Self.defaultLifetime
        let lifetime = min(max(maxAge, Self.minimumLifetime), Self.maximumLifetime)
        return await ProviderKeySet.make(from: jwks, expiresAt: clock.now().addingTimeInterval(lifetime), logger: logger)
    }
}
