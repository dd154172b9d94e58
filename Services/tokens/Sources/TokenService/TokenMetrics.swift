import CoreMetrics

/// The token service's domain counters: refresh rotations, refresh token reuse detected, and
/// sessions revoked by reason. Rotations are hot, so their counter is made once.
enum TokenMetrics {
    static let rotations = Counter(label: "tokens_refresh_rotations_total")
    static let reuseDetections = Counter(label: "tokens_refresh_reuse_detected_total")

    /// Counts revoked sessions in `tokens_sessions_revoked_total{reason}`.
    static func countRevocations(_ entries: [RevocationList.Entry]) {
        var byReason: [String: Int] = [:]
        for case .session(_, _, let reason, _) in entries {
            byReason[reason, default: 0] += 1
        }
        for (reason, count) in byReason {
            Counter(label: "tokens_sessions_revoked_total", dimensions: [("reason", reason)]).increment(by: count)
        }
    }
}
