import CoreMetrics

/// Guest accounts (DESIGN.md section 9.1) as `/metrics` counts them: made, upgraded in place,
/// merged into an existing user, and deleted after `GUEST_TTL` unused.
enum GuestMetrics {
    static let created = Counter(label: "gateway_guest_accounts_total", dimensions: [("event", "created")])
    static let upgraded = Counter(label: "gateway_guest_accounts_total", dimensions: [("event", "upgraded")])
    static let merged = Counter(label: "gateway_guest_accounts_total", dimensions: [("event", "merged")])
    static let expired = Counter(label: "gateway_guest_accounts_total", dimensions: [("event", "expired")])
}
