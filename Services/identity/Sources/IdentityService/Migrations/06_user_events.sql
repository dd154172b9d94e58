-- The feed of user lifecycle events for other services (DESIGN.md section 9.4), written in the
-- same transaction as each change (an outbox). `seq` is taken from the sequence while the
-- writing transaction holds the feed's advisory lock, which it keeps until it commits: so
-- rows commit in `seq` order, and a reader that has seen `seq` n will never later find a row
-- below n (see EventFeed.swift for why a bare sequence is not enough).
CREATE SEQUENCE identity.user_event_seq;
CREATE TABLE identity.user_events (
    seq bigint PRIMARY KEY,
    id uuid NOT NULL UNIQUE,
    type text NOT NULL,
    user_id uuid NOT NULL,
    occurred_at timestamptz NOT NULL DEFAULT now(),
    data jsonb NOT NULL DEFAULT '{}'
);
CREATE INDEX user_events_user ON identity.user_events (user_id);
CREATE INDEX user_events_time ON identity.user_events (occurred_at);

-- Where each webhook receiver (`WEBHOOK_URLS`) is in the feed: the last event it answered 2xx.
-- A replica delivers to a URL while it holds that row locked, so replicas never deliver the
-- same URL at once and a receiver gets the events in feed order.
CREATE TABLE identity.webhook_cursors (
    url text PRIMARY KEY,
    seq bigint NOT NULL
);
