import CompactJSON
import FoundationEssentials
import JWTKit
import Logging
import NIOCore
import NIOFoundationEssentialsCompat
import ServiceProtocol
import TextCoding
import TokensAPI
import TokensJWT
import Synchronization

/// What a verified access token says.
struct VerifiedToken: Sendable {
    var caller: Caller
    /// The token's `iat` in Unix milliseconds (compared with a user's not-before).
    var issuedAt: Int64
    /// `cnf.jkt`: the thumbprint of the device key the token is bound to (DPoP); nil for a
    /// bearer token.
    var dpopJKT: String? = nil
}

/// Verifies access tokens locally with the keys `tokens.jwks` publishes: the signature (with
/// the algorithm of the key the `kid` names), `iss` and `aud` pinned, `exp` and `iat` with a
/// small leeway. Revocation is `RevocationChecker`'s job.
struct AccessTokenVerifier: Sendable {
    let keys: SigningKeyCache
    let issuer: String
    let audience: String
    let leeway: Int
    /// Tokens already verified, so that an app's repeated calls with one token skip the
    /// signature check (revocation is still checked on every request).
    let verified = VerifiedTokenCache()

    /// The verified caller; `APIError.tokenExpired` for a well-signed token past `exp` (plus
    /// the leeway), `APIError.unauthorized` for any other defect (the reason goes to the log at
    /// debug level only), `service_unavailable` when the keys cannot be fetched.
    func verify(_ tokenText: String, logger: Logger) async throws -> VerifiedToken {
        guard tokenText.utf8.count <= 8192 else { throw APIError.unauthorized }
        let now = Date().timeIntervalSince1970
        let generation = self.keys.generation.load(ordering: .acquiring)
        if let hit = self.verified.lookup(tokenText, now: now, leeway: Double(self.leeway), keyGeneration: generation) {
            return hit
        }
        // RFC 7515/7519 rules behind the signature (SignedTokenRules): checked before any
        // reader reads the token, so two parsers cannot read it two ways.
        do {
            try SignedTokenRules.check(tokenText, now: now, leeway: Double(self.leeway))
        } catch {
            logger.debug("Access token refused", metadata: ["reason": "\(error)"])
            throw APIError.unauthorized
        }
        let claims: AccessTokenClaims
        do {
            claims = try await self.keys.verify(tokenText)
        } catch let error as RPCError {
            throw error
        } catch {
            logger.debug("Access token refused", metadata: ["reason": "\(error)"])
            throw APIError.unauthorized
        }
        let leeway = Double(self.leeway)
        guard let (userID, sessionID) = claims.subject(issuer: self.issuer, audience: self.audience),
            claims.iat.value.timeIntervalSince1970 - leeway <= now
        else {
            logger.debug("Access token refused: claims")
            throw APIError.unauthorized
        }
        guard claims.exp.value.timeIntervalSince1970 + leeway > now else { throw APIError.tokenExpired }
        let token = VerifiedToken(
            caller: Caller(userID: userID, sessionID: sessionID, isAdmin: claims.adm ?? false),
            issuedAt: claims.issuedAtMilliseconds, dpopJKT: claims.cnf?.jkt)
        self.verified.insert(
            token, for: tokenText, expiresAt: claims.exp.value.timeIntervalSince1970, now: now, keyGeneration: generation)
        return token
    }
}

/// Access tokens whose signature and claims were verified, until they expire: bounded
/// (emptied when full), void once the key set changes, and checked again after `maximumAge`
/// (so a key removed from `tokens` stops verifying as soon as the key cache would notice).
///
/// A lock, not an actor: every authenticated request reads it (a per-request hot path).
final class VerifiedTokenCache: Sendable {
    struct Entry {
        var token: VerifiedToken
        var expiresAt: Double
        var verifiedAt: Double
        var keyGeneration: Int
    }

    let capacity: Int
    let maximumAge: Double
    private let entries = Mutex<[String: Entry]>([:])

    init(capacity: Int = 20_000, maximumAge: Double = 300) {
        self.capacity = capacity
        self.maximumAge = maximumAge
    }

    func lookup(_ text: String, now: Double, leeway: Double, keyGeneration: Int) -> VerifiedToken? {
        guard let entry = self.entries.withLock({ $0[text] }), entry.keyGeneration == keyGeneration else { return nil }
        guard entry.expiresAt + leeway > now, now - entry.verifiedAt < self.maximumAge else {
            self.entries.withLock { _ = $0.removeValue(forKey: text) }
            return nil
        }
        return entry.token
    }

    func insert(_ token: VerifiedToken, for text: String, expiresAt: Double, now: Double, keyGeneration: Int) {
        self.entries.withLock { entries in
            if entries.count >= self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[text] = Entry(token: token, expiresAt: expiresAt, verifiedAt: now, keyGeneration: keyGeneration)
        }
    }
}

/// The public keys of `tokens`, fetched with `tokens.jwks` from every replica: cached, refetched when a token
/// names an unknown `kid` (at most once per `refetchInterval`, so tokens with made-up kids
/// cannot make the gateway hammer `tokens`) and when older than `maximumAge` (so a removed key
/// stops verifying).
actor SigningKeyCache {
    private let tokens: RPCClient
    private let refetchInterval: Duration
    private let maximumAge: Duration
    private let logger: Logger
    private var collection: JWTKeyCollection?
    private var json: ByteBuffer?
    private var kids: Set<String> = []
    /// The algorithm each published key signs with (its JWK's `alg`), which a token's header
    /// must name (RFC 8725 §3.1): a key is never used with another algorithm than its own.
    private var algorithms: [String: String] = [:]
    /// Changes whenever the set of key ids does: verified tokens cached under another
    /// generation are checked again.
    nonisolated let generation = Atomic<Int>(0)
    private var fetchedAt: ContinuousClock.Instant?
    private var fetching: Task<Void, any Error>?

    init(tokens: RPCClient, refetchInterval: Duration = .seconds(1), maximumAge: Duration = .seconds(300), logger: Logger) {
        self.tokens = tokens
        self.refetchInterval = refetchInterval
        self.maximumAge = maximumAge
        self.logger = logger
    }

    /// The JWKS document as `tokens` published it, for `/.well-known/jwks.json`.
    func document() async throws -> ByteBuffer {
        try await self.current()
        return self.json ?? ByteBuffer(string: #"{"keys":[]}"#)
    }

    /// Verifies the token's signature with the key its `kid` names; on an unknown `kid`,
    /// refetches once if allowed. A token without a `kid`, or naming no key of ours, is refused
    /// (jwt-kit alone would try its default key for it).
    func verify(_ token: String) async throws -> AccessTokenClaims {
        guard let header = Self.header(of: token), let kid = header.kid else { throw UnknownKey() }
        var keys = try await self.current()
        if !self.kids.contains(kid) {
            guard let fetchedAt, ContinuousClock.now - fetchedAt >= self.refetchInterval else { throw UnknownKey() }
            try await self.fetch()
            guard self.kids.contains(kid), let collection else { throw UnknownKey() }
            keys = collection
        }
        // The header's `alg` must be the key's own: JWTKit verifies with the key's algorithm
        // whatever the header says, so a token naming another would otherwise pass.
        guard let algorithm = self.algorithms[kid], header.alg == algorithm else { throw WrongAlgorithm() }
        return try await keys.verify(token, as: AccessTokenClaims.self)
    }

    struct UnknownKey: Error {}
    struct WrongAlgorithm: Error {}

    /// The `kid` and `alg` of a JWT's header, without verifying anything: read by `JWSHeader`'s
    /// own reader, Foundation's decoder behind it (the RPC layer's coders).
    static func header(of token: String) -> JWSHeader? {
        guard let end = token.firstIndex(of: "."), token.distance(from: token.startIndex, to: end) <= 1024 else { return nil }
        guard let bytes = Base64URL.decode(String(token[..<end])) else { return nil }
        return try? RPCJSON.decode(JWSHeader.self, from: Data(bytes))
    }

    private func current() async throws -> JWTKeyCollection {
        if let collection, let fetchedAt, ContinuousClock.now - fetchedAt < self.maximumAge {
            return collection
        }
        try await self.fetch()
        guard let collection else { throw RPCError(.serviceUnavailable, "No signing keys", retryable: true) }
        return collection
    }

    /// One fetch at a time; callers arriving meanwhile wait for it.
    private func fetch() async throws {
        if let fetching {
            return try await fetching.value
        }
        let task = Task { try await self.load() }
        self.fetching = task
        defer { self.fetching = nil }
        try await task.value
    }

    /// Asks every `tokens` replica for its keys and keeps them all: during a rotation a
    /// replica may publish a key another has not read yet, and a token it signed must verify
    /// whichever replica the gateway asked first.
    private func load() async throws {
        var sets = await self.tokens.callEveryAddress(Tokens.jwks, Empty()).values.compactMap { try? $0.get() }
        if sets.isEmpty {
            // No connection is up yet (the gateway is starting) or every replica failed: one
            // ordinary call, which waits for a connection and retries another replica.
            sets = [try await self.tokens.call(Tokens.jwks, Empty(), options: .init(idempotent: true))]
        }
        try await self.install(PublicJWKS.merging(sets))
        self.logger.info("Signing keys loaded", metadata: ["keys": "\(self.kids.count)", "replicas": "\(sets.count)"])
    }

    /// Makes `published` the keys tokens are verified with, and the JWKS document served.
    func install(_ published: PublicJWKS) async throws {
        let bytes: ByteBuffer
        let jwks: JWKS
        do {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            let encoded = try encoder.encode(published)
            jwks = try JSONDecoder().decode(JWKS.self, from: encoded)
            bytes = ByteBuffer(data: encoded)
        } catch {
            throw RPCError(.internal, "tokens.jwks returned an unreadable key set")
        }
        let keys = JWTKeyCollection()
        try await keys.add(jwks: jwks)
        self.collection = keys
        let kids = Set(jwks.keys.compactMap { $0.keyIdentifier?.string })
        if kids != self.kids { self.generation.add(1, ordering: .releasing) }
        self.kids = kids
        self.algorithms = Dictionary(
            published.keys.compactMap { key in key.kid.flatMap { kid in key.alg.map { (kid, $0) } } }) { first, _ in first }
        self.json = bytes
        self.fetchedAt = .now
    }
}
