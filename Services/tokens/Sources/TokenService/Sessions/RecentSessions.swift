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
final class RecentSessions: Sendable {
    private let entries = Mutex<[[UInt8]: AccessTokenIssuer.SessionFacts]>([:])
    let capacity: Int

    init(capacity: Int = 10_000) {
        self.capacity = capacity
    }

    /// Remembers `session` as the session of the token whose hash is `tokenHash`.
    func remember(_ session: AccessTokenIssuer.SessionFacts, forTokenHash tokenHash: [UInt8]) {
        self.entries.withLock { entries in
            if entries.count >= self.capacity { entries.removeAll(keepingCapacity: true) }
            entries[tokenHash] = session
        }
    }

    /// The session of the token whose hash is `tokenHash`, if remembered; forgotten from now on.
    func take(tokenHash: [UInt8]) -> AccessTokenIssuer.SessionFacts? {
        self.entries.withLock { $0.removeValue(forKey: tokenHash) }
    }

    var count: Int { self.entries.withLock { $0.count } }
}
