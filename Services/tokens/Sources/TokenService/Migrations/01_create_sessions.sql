-- Sessions and their refresh tokens. A refresh token is stored only as its SHA-256 hash;
-- the successor pair of a rotated token is kept sealed with a key derived from that token.
CREATE TABLE tokens.sessions (
    id uuid PRIMARY KEY,
    user_id uuid NOT NULL,
    is_admin boolean NOT NULL DEFAULT false,
    device_name text,
    created_at timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    revoke_reason text
);
CREATE INDEX sessions_user_id_idx ON tokens.sessions (user_id);
CREATE INDEX sessions_expires_at_idx ON tokens.sessions (expires_at);
CREATE INDEX sessions_revoked_at_idx ON tokens.sessions (revoked_at) WHERE revoked_at IS NOT NULL;

CREATE TABLE tokens.refresh_tokens (
    hash bytea PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES tokens.sessions (id) ON DELETE CASCADE,
    generation integer NOT NULL,
    issued_at timestamptz NOT NULL,
    rotated_at timestamptz,
    successor_sealed bytea
);
CREATE INDEX refresh_tokens_session_id_idx ON tokens.refresh_tokens (session_id);
CREATE INDEX refresh_tokens_sealed_idx ON tokens.refresh_tokens (rotated_at) WHERE successor_sealed IS NOT NULL;

-- Per-user "not before": access tokens of the user issued before it are dead
-- (deactivation, account deletion).
CREATE TABLE tokens.user_revocations (
    user_id uuid PRIMARY KEY,
    not_before timestamptz NOT NULL,
    reason text NOT NULL
);
CREATE INDEX user_revocations_not_before_idx ON tokens.user_revocations (not_before);
