-- Several writes of one user as one statement, in the order given. content-state folds the
-- writes of a user that queue behind each other in its write line (UserWriteLine) into one
-- call, so the user's lock is taken, the version row updated and the transaction committed
-- once for all of them; a write alone is a call with one write. From this migration on
-- content-state writes with this function only; write_items (migration 2) stays for replicas
-- of the previous release that run during an upgrade.
-- Each write is applied as write_items applies a write alone, one after the other under one
-- lock, with the same guarantees:
--   * the user's `user_versions` row is locked first, so a user's writers run one at a time;
--   * each changed item takes the next number of the user's version, under that lock, so
--     versions commit in order and a changes poll never skips a change that commits late;
--   * an item the transition leaves as it was keeps its row and version (idempotent writes);
--   * a later write (or a later entry of one write) sees what an earlier one did;
--   * if any write would take the user past p_max_favorites, the whole call changes nothing
--     (SQLSTATE LK001); the caller then runs its writes one call each, so only that write is
--     refused.
-- All writes of a call share its time. Write w is the next p_sizes[w] entries of p_items, with
-- p_transitions[w] naming what happens to each (ItemTransition in the service):
--   favorite         favorited_at kept or now; nickname / position set to p_nicknames[w] /
--                    p_positions[w] when p_set_nicknames[w] / p_set_positions[w] is true
--   unfavorite       favorite, nickname and position cleared
--   toggle_favorite  favorite when not favorited, else unfavorite
--   mark_read / unmark_read, unlike / remove_unlike   read_at / unliked_at kept or now / cleared
-- One row per entry of p_items: the number of its write (from 1), the item's state afterwards
-- (times in whole milliseconds, with date_part as the service's reads: float8, where extract
-- computes in numeric), and whether its write changed it.
CREATE FUNCTION content.write_batch(
    p_user uuid, p_sizes integer[], p_items text[], p_transitions text[],
    p_set_nicknames boolean[], p_nicknames text[], p_set_positions boolean[], p_positions bigint[],
    p_max_favorites integer)
RETURNS TABLE (
    write_index integer, item_id text, favorited_ms bigint, nickname text, "position" bigint,
    read_ms bigint, unliked_ms bigint, changed boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    favorites integer;
    base bigint;
    now_at timestamptz;
    taken integer := 0;
    w integer;
    next_entry integer := 1;
    write_delta integer;
    transition text; set_nickname boolean; nickname_to text; set_position boolean; position_to bigint;
    id text;
    old_favorited timestamptz; old_nickname text; old_position bigint; old_read timestamptz; old_unliked timestamptz;
    new_favorited timestamptz; new_nickname text; new_position bigint; new_read timestamptz; new_unliked timestamptz;
BEGIN
    -- The user's lock for the rest of the statement's transaction (the row is created on first use).
    INSERT INTO content.user_versions AS v (user_id) VALUES (p_user)
    ON CONFLICT (user_id) DO UPDATE SET version = v.version
    RETURNING v.favorite_count, v.version INTO favorites, base;
    -- The time of the writes, taken under the lock, in whole milliseconds.
    now_at := to_timestamp(floor(extract(epoch FROM clock_timestamp()) * 1000) / 1000.0);

    FOR w IN 1 .. coalesce(cardinality(p_sizes), 0) LOOP
        write_delta := 0;
        transition := p_transitions[w];
        set_nickname := p_set_nicknames[w]; nickname_to := p_nicknames[w];
        set_position := p_set_positions[w]; position_to := p_positions[w];
        FOREACH id IN ARRAY p_items[next_entry : next_entry + p_sizes[w] - 1] LOOP
            old_favorited := NULL; old_nickname := NULL; old_position := NULL; old_read := NULL; old_unliked := NULL;
            SELECT s.favorited_at, s.nickname, s.position, s.read_at, s.unliked_at
            INTO old_favorited, old_nickname, old_position, old_read, old_unliked
            FROM content.item_states s WHERE s.user_id = p_user AND s.item_id = id;

            new_favorited := old_favorited; new_nickname := old_nickname; new_position := old_position;
            new_read := old_read; new_unliked := old_unliked;
            CASE transition
                WHEN 'favorite' THEN
                    new_favorited := COALESCE(old_favorited, now_at);
                    IF set_nickname THEN new_nickname := nickname_to; END IF;
                    IF set_position THEN new_position := position_to; END IF;
                WHEN 'unfavorite' THEN
                    new_favorited := NULL; new_nickname := NULL; new_position := NULL;
                WHEN 'toggle_favorite' THEN
                    IF old_favorited IS NULL THEN
                        new_favorited := now_at;
                    ELSE
                        new_favorited := NULL; new_nickname := NULL; new_position := NULL;
                    END IF;
                WHEN 'mark_read' THEN new_read := COALESCE(old_read, now_at);
                WHEN 'unmark_read' THEN new_read := NULL;
                WHEN 'unlike' THEN new_unliked := COALESCE(old_unliked, now_at);
                WHEN 'remove_unlike' THEN new_unliked := NULL;
            END CASE;

            changed := (new_favorited, new_nickname, new_position, new_read, new_unliked)
                IS DISTINCT FROM (old_favorited, old_nickname, old_position, old_read, old_unliked);
            IF changed THEN
                taken := taken + 1;
                write_delta := write_delta + (new_favorited IS NOT NULL)::integer - (old_favorited IS NOT NULL)::integer;
                INSERT INTO content.item_states AS s
                    (user_id, item_id, favorited_at, nickname, position, read_at, unliked_at, updated_at, version)
                VALUES (p_user, id, new_favorited, new_nickname, new_position, new_read, new_unliked, now_at, base + taken)
                ON CONFLICT (user_id, item_id) DO UPDATE SET
                    favorited_at = excluded.favorited_at, nickname = excluded.nickname, position = excluded.position,
                    read_at = excluded.read_at, unliked_at = excluded.unliked_at,
                    updated_at = excluded.updated_at, version = excluded.version;
            END IF;

            write_index := w;
            item_id := id;
            favorited_ms := (date_part('epoch', new_favorited) * 1000)::bigint;
            nickname := new_nickname;
            "position" := new_position;
            read_ms := (date_part('epoch', new_read) * 1000)::bigint;
            unliked_ms := (date_part('epoch', new_unliked) * 1000)::bigint;
            RETURN NEXT;
        END LOOP;
        next_entry := next_entry + p_sizes[w];

        IF write_delta > 0 AND favorites + write_delta > p_max_favorites THEN
            -- Raising undoes the whole statement: nothing of any of its writes stays.
            RAISE EXCEPTION 'a user can keep at most % favorites', p_max_favorites USING ERRCODE = 'LK001';
        END IF;
        favorites := favorites + write_delta;
    END LOOP;

    IF taken > 0 THEN
        UPDATE content.user_versions
        SET version = version + taken, favorite_count = favorites
        WHERE user_id = p_user;
    END IF;
END
$$;
