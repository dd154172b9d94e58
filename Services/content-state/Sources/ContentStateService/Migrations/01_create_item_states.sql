-- One row per user: the lock every writer of that user takes first, the user's change
-- version (the changes feed's clock) and the number of current favorites (the limit check).
CREATE TABLE content.user_versions (
    user_id uuid PRIMARY KEY,
    version bigint NOT NULL DEFAULT 0,
    favorite_count integer NOT NULL DEFAULT 0 CHECK (favorite_count >= 0)
);

-- One row per (user, item) ever touched. A row whose favorite, read and unlike are all
-- cleared stays as a tombstone so the changes feed can tell devices about the removal.
CREATE TABLE content.item_states (
    user_id uuid NOT NULL,
    item_id text COLLATE "C" NOT NULL CHECK (octet_length(item_id) BETWEEN 1 AND 256),
    favorited_at timestamptz,
    nickname text,
    position bigint,
    -- Position order puts favorites without a position last (after every allowed position).
    sort_position bigint GENERATED ALWAYS AS (COALESCE(position, 9007199254740992)) STORED,
    read_at timestamptz,
    unliked_at timestamptz,
    updated_at timestamptz NOT NULL,
    version bigint NOT NULL,
    PRIMARY KEY (user_id, item_id),
    CHECK (favorited_at IS NOT NULL OR (nickname IS NULL AND position IS NULL))
);

-- The changes feed: a user's rows in version order; unique, so no two changes share a version.
CREATE UNIQUE INDEX item_states_changes ON content.item_states (user_id, version);

-- The list orders, each holding only the rows it lists.
CREATE INDEX item_states_favorites_recent ON content.item_states (user_id, favorited_at, item_id)
    WHERE favorited_at IS NOT NULL;
CREATE INDEX item_states_favorites_position ON content.item_states (user_id, sort_position, item_id)
    WHERE favorited_at IS NOT NULL;
CREATE INDEX item_states_read_recent ON content.item_states (user_id, read_at, item_id)
    WHERE read_at IS NOT NULL;
CREATE INDEX item_states_unliked_recent ON content.item_states (user_id, unliked_at, item_id)
    WHERE unliked_at IS NOT NULL;
