-- Users and the provider identities that sign into them (DESIGN.md section 5, identity).
CREATE TABLE identity.users (
    id uuid PRIMARY KEY,
    email text,
    email_verified boolean NOT NULL DEFAULT false,
    display_name text,
    is_active boolean NOT NULL DEFAULT true,
    is_admin boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- Automatic linking looks users up by verified email.
CREATE INDEX users_verified_email_idx ON identity.users (lower(email)) WHERE email_verified;
-- The admin list pages newest first.
CREATE INDEX users_created_at_idx ON identity.users (created_at DESC, id DESC);

CREATE TABLE identity.identities (
    provider text NOT NULL CHECK (provider IN ('apple', 'google')),
    subject text NOT NULL,
    user_id uuid NOT NULL REFERENCES identity.users (id) ON DELETE CASCADE,
    email text,
    email_verified boolean NOT NULL DEFAULT false,
    is_private_email boolean NOT NULL DEFAULT false,
    -- Apple's refresh token, AES-GCM sealed with APPLE_TOKEN_ENCRYPTION_KEY, and the client it belongs to.
    apple_refresh_token bytea,
    apple_client_id text,
    created_at timestamptz NOT NULL DEFAULT now(),
    last_sign_in_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (provider, subject),
    -- One identity per provider per user, so "unlink google" names exactly one.
    UNIQUE (user_id, provider)
);

-- Apple authorizations still to revoke after a deletion or unlink (an outbox: written in the
-- same transaction as the deletion, emptied by the revocation worker with retries).
CREATE TABLE identity.apple_revocations (
    id bigserial PRIMARY KEY,
    client_id text NOT NULL,
    refresh_token bytea NOT NULL,
    attempts int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error text,
    created_at timestamptz NOT NULL DEFAULT now()
);
