/// Where tokens keeps its audit trail (DESIGN.md section 9.3): sign-ins with the session they
/// opened, logouts, revocations and refresh reuse, each in the statement that makes the change.
enum TokensAudit {
    static let table = "tokens.audit_events"
}
