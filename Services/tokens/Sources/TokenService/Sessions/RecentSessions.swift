import Synchronization

/// The session facts of the refresh tokens this replica handed out last (at sign-in or by a
/// rotation), by token hash, so that the refresh of such a token signs its successor pair
/// without first reading the token's row: the compare-and-set that rotates it checks that the
/// token is unrotated and its session live, in the one statement (`RefreshRotation`).
///
/// A session's facts (id, user, admin flag, end) never change once it exists; what can change
/// (revocation, the token's rotation by another caller or replica) is what the statement
/// checks. An entry is taken out when used: a token is presented once. When full, the whole
/// cache is dropped (its refreshes read their rows, as any other replica's tokens do).
///
/// A lock, not an actor: every sign-in and refresh reads or writes it (a per-request hot path).
/// The keys are the hashes' 32 bytes held in the table itself: as arrays, each of the 10,000
/// entries also had a heap block of its own (2.0 MB in all when full; now 1.6, 16,384 slots of
/// 96 bytes).
final class RecentSessions: Sendable {
    private let entries = Mutex<[TokenHashKey: AccessTokenIssuer.SessionFacts]>([:])
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Remembers `session` as the session of the token whose hash is `tokenHash`.
    func remember(_ session: AccessTokenIssuer.SessionFacts, forTokenHash tokenHash: [UInt8]) {
        guard let key = TokenHashKey(tokenHash) else { return }
        self.entries.withLock { entries in
            if entries.count >= self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = session
        }
    }

    /// The session of the token whose hash is `tokenHash`, if remembered; forgotten from now on.
    func take(tokenHash: [UInt8]) -> AccessTokenIssuer.SessionFacts? {
        guard let key = TokenHashKey(tokenHash) else { return nil }
        return self.entries.withLock { $0.removeValue(forKey: key) }
    }

    var count: Int { self.entries.withLock { $0.count } }
}

/// A SHA-256 token hash as four words, for a dictionary key stored inline.
struct TokenHashKey: Hashable, Sendable {
    private let words: SIMD4<UInt64>

    /// nil unless `hash` has SHA-256's 32 bytes.
    init?(_ hash: [UInt8]) {
        guard hash.count == 32 else { return nil }
        self.words = hash.withUnsafeBytes { raw in
            SIMD4(
                raw.loadUnaligned(fromByteOffset: 0, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self),
                raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self), raw.loadUnaligned(fromByteOffset: 24, as: UInt64.self))
        }
    }
}
