-- The audit trail of tokens' own changes: sign-ins (the session they open), logouts,
-- revocations and refresh reuse (DESIGN.md section 9.3): no token or secret, only facts.
-- A deleted user's rows go when tokens revokes them for the deletion.
CREATE TABLE tokens.audit_events (
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
CREATE INDEX audit_events_time ON tokens.audit_events (occurred_at DESC, id DESC);
CREATE INDEX audit_events_user ON tokens.audit_events (user_id, occurred_at DESC, id DESC);
