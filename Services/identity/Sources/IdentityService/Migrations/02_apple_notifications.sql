-- Sign in with Apple server-to-server notifications (DESIGN.md section 5, identity).

-- Whether Apple's private relay forwards email to the person (email-disabled / email-enabled).
-- Shown to the admin; never used for linking.
ALTER TABLE identity.identities ADD COLUMN email_forwarding boolean NOT NULL DEFAULT true;

-- Every notification applied, by its jti, so that a repeat changes nothing. `follow_up` is what
-- the caller still had to do (revoke the user's sessions, or delete the rest of the account);
-- `completed_at` is set once it did, so that a repeat of a notification whose follow-up failed
-- completes it. Rows are kept 30 days; notifications older than 7 days are refused.
CREATE TABLE identity.apple_notifications (
    jti text PRIMARY KEY,
    event_type text NOT NULL,
    subject text NOT NULL,
    user_id uuid,
    follow_up text NOT NULL DEFAULT 'none' CHECK (follow_up IN ('none', 'revoke_sessions', 'delete_account')),
    received_at timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz
);
CREATE INDEX apple_notifications_received_at_idx ON identity.apple_notifications (received_at);
