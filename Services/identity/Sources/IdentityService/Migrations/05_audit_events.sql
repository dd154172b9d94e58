-- The audit trail of identity's own changes and of the gateway's admin logins (DESIGN.md
-- section 9.3): no token or secret, only facts. Deleting a user deletes their rows here in the
-- deletion's transaction, which then records the deletion without IP or user agent.
CREATE TABLE identity.audit_events (
    id uuid PRIMARY KEY,
    type text NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    user_id uuid,
    session_id uuid,
    ip text,
    user_agent text,
    request_id text,
    details jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX audit_events_time ON identity.audit_events (occurred_at DESC, id DESC);
CREATE INDEX audit_events_user ON identity.audit_events (user_id, occurred_at DESC, id DESC);
