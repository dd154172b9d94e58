-- A guest's state merged into another user's (DESIGN.md section 9.1), as one statement:
--   * both users' `user_versions` rows are locked first, in uuid order (as write_users locks),
--     so the target's writers wait and a changes poll never skips a merged change;
--   * per item, the union: favorited if either is, the earlier favorited_at, the target's
--     nickname and position where it has one, the later read_at and unliked_at; the guest's
--     tombstones bring nothing;
--   * each item of the target that this changes takes the next number of the target's version,
--     with updated_at the time of the merge, so the target's other devices learn of it;
--   * the guest's rows and version row are deleted, and the merge recorded in guest_merges
--     (guest -> target, the counts), so a repeat answers the recorded merge and changes nothing.
-- A merge is not refused for MAX_FAVORITES_PER_USER: nothing the guest kept is dropped (later
-- favorites of the target are refused until it is under the limit again).
CREATE TABLE content.guest_merges (
    guest_user_id uuid PRIMARY KEY,
    target_user_id uuid NOT NULL,
    favorites integer NOT NULL,
    read integer NOT NULL,
    unlikes integer NOT NULL,
    merged_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX guest_merges_target ON content.guest_merges (target_user_id);
CREATE INDEX guest_merges_age ON content.guest_merges (merged_at);

CREATE FUNCTION content.merge_guest(p_guest uuid, p_target uuid)
RETURNS TABLE (merged_into uuid, merged_favorites integer, merged_read integer, merged_unlikes integer)
LANGUAGE plpgsql AS $$
DECLARE
    locking uuid;
    base bigint;
    now_at timestamptz;
    n_favorites integer;
    n_read integer;
    n_unlikes integer;
    taken integer;
    favorite_delta integer;
BEGIN
    IF p_guest = p_target THEN
        RAISE EXCEPTION 'a user cannot be merged into itself' USING ERRCODE = '22023';
    END IF;
    FOR locking IN SELECT u FROM unnest(ARRAY[p_guest, p_target]) AS u ORDER BY u LOOP
        INSERT INTO content.user_versions AS v (user_id) VALUES (locking)
        ON CONFLICT (user_id) DO UPDATE SET version = v.version;
    END LOOP;

    -- A repeat: the merge is done; answer it as it was.
    RETURN QUERY SELECT m.target_user_id, m.favorites, m.read, m.unlikes
        FROM content.guest_merges m WHERE m.guest_user_id = p_guest;
    IF FOUND THEN
        DELETE FROM content.item_states WHERE user_id = p_guest;
        DELETE FROM content.user_versions WHERE user_id = p_guest;
        RETURN;
    END IF;

    SELECT v.version INTO base FROM content.user_versions v WHERE v.user_id = p_target;
    now_at := to_timestamp(floor(extract(epoch FROM clock_timestamp()) * 1000) / 1000.0);

    WITH guest AS (
        SELECT g.* FROM content.item_states g
        WHERE g.user_id = p_guest AND (g.favorited_at IS NOT NULL OR g.read_at IS NOT NULL OR g.unliked_at IS NOT NULL)
    ), merged AS (
        SELECT g.item_id,
            t.favorited_at AS old_favorited, t.nickname AS old_nickname, t.position AS old_position,
            t.read_at AS old_read, t.unliked_at AS old_unliked,
            LEAST(t.favorited_at, g.favorited_at) AS new_favorited,
            -- An item that is not favorited has neither (a CHECK of item_states).
            COALESCE(t.nickname, g.nickname) AS new_nickname,
            COALESCE(t.position, g.position) AS new_position,
            GREATEST(t.read_at, g.read_at) AS new_read,
            GREATEST(t.unliked_at, g.unliked_at) AS new_unliked
        FROM guest g LEFT JOIN content.item_states t ON t.user_id = p_target AND t.item_id = g.item_id
    ), changed AS (
        SELECT m.*, row_number() OVER (ORDER BY m.item_id) AS n
        FROM merged m
        WHERE (m.new_favorited, m.new_nickname, m.new_position, m.new_read, m.new_unliked)
            IS DISTINCT FROM (m.old_favorited, m.old_nickname, m.old_position, m.old_read, m.old_unliked)
    ), written AS (
        INSERT INTO content.item_states AS s
            (user_id, item_id, favorited_at, nickname, position, read_at, unliked_at, updated_at, version)
        SELECT p_target, c.item_id, c.new_favorited, c.new_nickname, c.new_position, c.new_read, c.new_unliked, now_at, base + c.n
        FROM changed c
        ON CONFLICT (user_id, item_id) DO UPDATE SET
            favorited_at = excluded.favorited_at, nickname = excluded.nickname, position = excluded.position,
            read_at = excluded.read_at, unliked_at = excluded.unliked_at,
            updated_at = excluded.updated_at, version = excluded.version
        RETURNING 1
    )
    -- (A data-modifying WITH runs whether or not the query reads it.)
    SELECT
        count(*) FILTER (WHERE (c.new_favorited, c.new_nickname, c.new_position)
                               IS DISTINCT FROM (c.old_favorited, c.old_nickname, c.old_position)),
        count(*) FILTER (WHERE c.new_read IS DISTINCT FROM c.old_read),
        count(*) FILTER (WHERE c.new_unliked IS DISTINCT FROM c.old_unliked),
        count(*),
        coalesce(sum((c.new_favorited IS NOT NULL)::integer - (c.old_favorited IS NOT NULL)::integer), 0)
    INTO n_favorites, n_read, n_unlikes, taken, favorite_delta
    FROM changed c;

    IF taken > 0 THEN
        UPDATE content.user_versions
        SET version = version + taken, favorite_count = favorite_count + favorite_delta
        WHERE user_id = p_target;
    END IF;
    DELETE FROM content.item_states WHERE user_id = p_guest;
    DELETE FROM content.user_versions WHERE user_id = p_guest;
    -- A repeat comes within an access token's life; a day is plenty.
    DELETE FROM content.guest_merges WHERE merged_at < now() - interval '1 day';
    INSERT INTO content.guest_merges (guest_user_id, target_user_id, favorites, read, unlikes)
    VALUES (p_guest, p_target, n_favorites, n_read, n_unlikes);
    RETURN QUERY SELECT p_target, n_favorites, n_read, n_unlikes;
END
$$;
