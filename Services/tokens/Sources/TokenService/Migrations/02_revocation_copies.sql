-- Revocations whose Redis copy may not be written yet. A row is added in the same transaction
-- as the revocation itself and removed once the copy is in Redis by whichever replica's
-- re-seeder gets to it first, so a replica that dies between its commit and its Redis write
-- (or whose write failed) loses no revocation. session_id names a revoked session; without
-- it the row stands for the user's not-before.
CREATE TABLE tokens.revocation_copies (
    id bigserial PRIMARY KEY,
    session_id uuid,
    user_id uuid NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX revocation_copies_created_at_idx ON tokens.revocation_copies (created_at);
