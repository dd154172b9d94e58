-- When Apple's latest email-disabled / email-enabled event for an identity happened (its
-- event_time): notifications may arrive out of order (Apple retries), and an older one must
-- not undo a newer one.
ALTER TABLE identity.identities ADD COLUMN email_forwarding_changed_at timestamptz;
