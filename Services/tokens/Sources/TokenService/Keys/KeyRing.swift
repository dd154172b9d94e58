import TextCoding
import TokensAPI
import TokensJWT
import FoundationEssentials
import JWTKit
import Logging
import ServiceKit
import Synchronization

/// The keys this replica signs and verifies with: every key of the folder is published and
/// verifies at once; the newest key of the configured algorithm signs once this replica has
/// seen it for the activation delay (`SIGNING_KEY_ACTIVATION_DELAY`), so that every replica has
/// published it and every verifier can know it before a token names it. The delay counts from
/// when this replica first read the key, not from the time in its name or file: a key made
/// long before it was mounted waits like a new one. Reloaded periodically so a key added by
/// `tokens keygen` is picked up by every replica without a restart.
///
/// A lock, not an actor: every sign-in and refresh signs with its snapshot (a per-request hot path).
public final class KeyRing: Sendable {
    /// One consistent view of the folder.
    struct Snapshot: Sendable {
        var keys: [SigningKey]
        var signingKid: String
        /// Set when the signing key is RSA: signs instead of `collection` (see `RS256Signer`).
        var rs256: RS256Signer?
        var collection: JWTKeyCollection
        var jwks: PublicJWKS
        /// When this replica first read each key (by `kid`); a key gone from the folder is forgotten.
        var firstSeen: [String: Date]
    }

    let folder: SigningKeyFolder
    let algorithm: SigningAlgorithm
    let activationDelay: Duration
    private let snapshot: Mutex<Snapshot>

    private init(folder: SigningKeyFolder, algorithm: SigningAlgorithm, activationDelay: Duration, snapshot: Snapshot) {
        self.folder = folder
        self.algorithm = algorithm
        self.activationDelay = activationDelay
        self.snapshot = Mutex(snapshot)
    }

    /// Loads the folder. With no key of `algorithm`, development generates one (holding the
    /// folder's lock, so replicas starting together make one) and production refuses to start.
    public static func load(
        folder: SigningKeyFolder, algorithm: SigningAlgorithm, activationDelay: Duration = .zero, generateIfMissing: Bool,
        logger: Logger, now: Date = Date()
    ) async throws -> KeyRing {
        var keys = try folder.load()
        if !keys.contains(where: { $0.algorithm == algorithm }) {
            guard generateIfMissing else {
                throw keys.isEmpty ? SigningKeyError.noKeys(folder.url.path) : SigningKeyError.noKeyForAlgorithm(algorithm.jwsName)
            }
            if let key = try folder.generateIfMissing(algorithm) {
                logger.warning(
                    "Generated a development signing key", metadata: ["tokens.kid": "\(key.kid)", "tokens.keys_dir": "\(folder.url.path)"])
            }
            keys = try folder.load()
        }
        let firstSeen = Self.firstSeen(keys, known: [:], now: now)
        let snapshot = try await Self.snapshot(of: keys, algorithm: algorithm, activationDelay: activationDelay, firstSeen: firstSeen, now: now)
        return KeyRing(folder: folder, algorithm: algorithm, activationDelay: activationDelay, snapshot: snapshot)
    }

    /// `known` with every key of `keys` it lacks first seen at `now`, and without the keys gone.
    static func firstSeen(_ keys: [SigningKey], known: [String: Date], now: Date) -> [String: Date] {
        Dictionary(keys.map { ($0.kid, known[$0.kid] ?? now) }, uniquingKeysWith: min)
    }

    /// The key that signs at `now`: the newest key of `algorithm` this replica has seen for the
    /// activation delay; while none has been (at start, every key is new to the replica), the
    /// oldest of them, the one every verifier has known longest.
    static func signer(
        among keys: [SigningKey], algorithm: SigningAlgorithm, activationDelay: Duration, firstSeen: [String: Date], now: Date
    ) -> SigningKey? {
        let candidates = keys.filter { $0.algorithm == algorithm }
        let seenBefore = now.addingTimeInterval(-activationDelay.timeInterval)
        return candidates.last { (firstSeen[$0.kid] ?? now) <= seenBefore } ?? candidates.first
    }

    private static func snapshot(
        of keys: [SigningKey], algorithm: SigningAlgorithm, activationDelay: Duration, firstSeen: [String: Date], now: Date
    ) async throws -> Snapshot {
        guard let signer = Self.signer(among: keys, algorithm: algorithm, activationDelay: activationDelay, firstSeen: firstSeen, now: now) else {
            throw SigningKeyError.noKeyForAlgorithm(algorithm.jwsName)
        }
        let collection = JWTKeyCollection()
        for key in keys {
            try await key.add(to: collection)
        }
        var rs256: RS256Signer?
        if case .rsa(let key) = signer.material {
            rs256 = try RS256Signer(pem: key.pemRepresentation, kid: signer.kid)
        }
        return Snapshot(
            keys: keys, signingKid: signer.kid, rs256: rs256, collection: collection,
            jwks: PublicJWKS(keys: keys.reversed().map(\.publicJWK)), firstSeen: firstSeen)
    }

    /// Reads the folder again and publishes what changed; a key whose activation delay has
    /// passed starts signing. Keeps the current keys if the folder cannot be read.
    public func reload(logger: Logger, now: Date = Date()) async {
        do {
            let keys = try self.folder.load()
            let (current, signing, known) = self.snapshot.withLock { ($0.keys.map(\.kid), $0.signingKid, $0.firstSeen) }
            let firstSeen = Self.firstSeen(keys, known: known, now: now)
            let signer = Self.signer(
                among: keys, algorithm: self.algorithm, activationDelay: self.activationDelay, firstSeen: firstSeen, now: now)
            guard keys.map(\.kid) != current || signer?.kid != signing else { return }
            let next = try await Self.snapshot(
                of: keys, algorithm: self.algorithm, activationDelay: self.activationDelay, firstSeen: firstSeen, now: now)
            self.snapshot.withLock { $0 = next }
            logger.info("Signing keys reloaded", metadata: ["tokens.kid": "\(next.signingKid)", "tokens.keys": "\(keys.count)"])
        } catch {
            logger.error("Cannot reload signing keys; keeping the current ones", metadata: ["error": "\(error)"])
        }
    }

    /// The `kid` new tokens carry.
    public var signingKid: String { self.snapshot.withLock { $0.signingKid } }

    /// Every key, newest first, as a JWK Set.
    public var jwks: PublicJWKS { self.snapshot.withLock { $0.jwks } }

    /// Signs `claims` with the newest key of the configured algorithm.
    func sign(_ claims: AccessTokenClaims) async throws -> String {
        let (collection, kid, rs256) = self.snapshot.withLock { ($0.collection, $0.signingKid, $0.rs256) }
        if let rs256 { return try rs256.sign(claims) }
        return try await collection.sign(claims, kid: JWKIdentifier(string: kid))
    }

    /// Verifies the signature with the key the header's `kid` names, refusing a header whose
    /// `alg` is not that key's own (no `none`, no algorithm confusion). The caller checks
    /// `exp`, `iss`, `aud` and revocation.
    func verify(_ token: String) async throws -> AccessTokenClaims {
        let (collection, keys) = self.snapshot.withLock { ($0.collection, $0.keys) }
        guard let header = JOSEHeader(token: token),
            let key = keys.first(where: { $0.kid == header.kid }), key.algorithm.jwsName == header.alg
        else { throw JWTError.signatureVerificationFailed }
        return try await collection.verify(token, as: AccessTokenClaims.self)
    }
}

/// The two header members checked before a signature is: `alg` and `kid`.
struct JOSEHeader: Decodable {
    var alg: String
    var kid: String

    init?(token: String) {
        guard let dot = token.firstIndex(of: "."), let bytes = Base64URL.decode(String(token[..<dot])),
            let header = try? JSONDecoder().decode(JOSEHeader.self, from: Data(bytes))
        else { return nil }
        self = header
    }
}
