-- The writes of several users as one set-based statement. write_users (migration 4) runs a
-- write_batch call a user, and write_batch a loop a written item: some thirty plpgsql steps
-- and four statements an item, which cost more than the writes themselves. From this migration
-- on content-state runs the calls it folds across users (its cross-user write line) with this
-- function; write_users stays for replicas of the previous release that run during an upgrade,
-- and a call alone still goes as a write_batch call (one item: less than this statement's
-- fixed cost).
-- Write w (from 1) is a transition (ItemTransition in the service, as write_batch takes it) of
-- user p_users[w]: p_transitions[w], with p_set_nicknames[w] / p_nicknames[w] and
-- p_set_positions[w] / p_positions[w]. Entry e is item p_items[e] of write p_writes[e]; the
-- entries of a write are consecutive and in the order of the writes, a user's writes in the
-- order they are to apply. One row per entry, in that order: the number of its write, the
-- item's state afterwards (as write_batch answers) and whether its write changed it.
-- The guarantees of write_batch, per user:
--   * every user's `user_versions` row is locked first, in uuid order (as write_users locks,
--     so that calls of these functions never wait for each other in a cycle);
--   * each changed item takes the next number of its user's version, in entry order, under
--     that lock, so versions commit in order and a changes poll never skips a late commit;
--   * an item the transition leaves as it was keeps its row and version (idempotent writes);
--   * if any write would take its user past p_max_favorites (counted at the end of each write
--     that adds favorites, as write_batch counts), the whole call changes nothing (SQLSTATE
--     LK001); the service then runs each user's call on its own;
--   * a later write sees what an earlier one did: when an item comes twice for one user, the
--     statement (which reads every item once, before it writes) cannot, so the call runs as
--     write_batch calls, one a run of consecutive writes of one user, in order.
-- All writes of a call share its time, taken under the locks, in whole milliseconds.
CREATE FUNCTION content.refuse_favorites_over(p_max_favorites integer) RETURNS boolean
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a user can keep at most % favorites', p_max_favorites USING ERRCODE = 'LK001';
END
$$;

-- plan_cache_mode: the statement's plan does not depend on the arrays' contents, and
-- planning it anew for every call (plpgsql's custom plans) cost more than running it.
CREATE FUNCTION content.write_entries(
    p_users uuid[], p_transitions text[], p_set_nicknames boolean[], p_nicknames text[],
    p_set_positions boolean[], p_positions bigint[], p_writes integer[], p_items text[],
    p_max_favorites integer)
RETURNS TABLE (
    write_number integer, item_id text, favorited_ms bigint, nickname text, "position" bigint,
    read_ms bigint, unliked_ms bigint, changed boolean)
LANGUAGE plpgsql SET plan_cache_mode = force_generic_plan AS $$
#variable_conflict use_column
DECLARE
    now_at timestamptz;
    first_write integer;
    last_write integer;
BEGIN
    IF NOT p_transitions <@ ARRAY['favorite', 'unfavorite', 'toggle_favorite', 'mark_read', 'unmark_read',
            'unlike', 'remove_unlike'] THEN
        RAISE EXCEPTION 'unknown transition in %', p_transitions USING ERRCODE = '22023';
    END IF;
    IF coalesce(cardinality(p_writes), 0) <> coalesce(cardinality(p_items), 0) THEN
        RAISE EXCEPTION 'p_writes and p_items differ in length' USING ERRCODE = '22023';
    END IF;

    INSERT INTO content.user_versions AS v (user_id)
    SELECT DISTINCT u FROM unnest(p_users) AS u ORDER BY u
    ON CONFLICT (user_id) DO UPDATE SET version = v.version;

    IF cardinality(p_items) > 1 AND EXISTS (
        SELECT FROM unnest(p_writes, p_items) AS e(w, item) GROUP BY p_users[e.w], e.item HAVING count(*) > 1)
    THEN
        first_write := 1;
        WHILE first_write <= cardinality(p_users) LOOP
            last_write := first_write;
            WHILE last_write < cardinality(p_users) AND p_users[last_write + 1] = p_users[first_write] LOOP
                last_write := last_write + 1;
            END LOOP;
            RETURN QUERY
                SELECT first_write - 1 + b.write_index, b.item_id, b.favorited_ms, b.nickname, b."position",
                    b.read_ms, b.unliked_ms, b.changed
                FROM content.write_batch(
                    p_users[first_write],
                    ARRAY(SELECT count(e.n)::integer
                          FROM generate_series(first_write, last_write) AS g(w)
                          LEFT JOIN unnest(p_writes) WITH ORDINALITY AS e(w, n) ON e.w = g.w
                          GROUP BY g.w ORDER BY g.w),
                    ARRAY(SELECT e.item FROM unnest(p_writes, p_items) WITH ORDINALITY AS e(w, item, n)
                          WHERE e.w BETWEEN first_write AND last_write ORDER BY e.n),
                    p_transitions[first_write : last_write], p_set_nicknames[first_write : last_write],
                    p_nicknames[first_write : last_write], p_set_positions[first_write : last_write],
                    p_positions[first_write : last_write], p_max_favorites) AS b;
            first_write := last_write + 1;
        END LOOP;
        RETURN;
    END IF;

    now_at := date_trunc('milliseconds', clock_timestamp());

    RETURN QUERY
    WITH entries AS (
        -- Each entry with its item's state before the call (OFFSET 0: one lookup by the key an
        -- entry, whatever the planner guesses of the arrays' lengths) and its user's row.
        SELECT e.n, e.w, p_users[e.w] AS u, e.item, p_transitions[e.w] AS t, uv.version AS base, uv.favorite_count AS favorites,
            s.favorited_at AS old_favorited, s.nickname AS old_nickname, s.position AS old_position,
            s.read_at AS old_read, s.unliked_at AS old_unliked
        FROM unnest(p_writes, p_items) WITH ORDINALITY AS e(w, item, n)
        CROSS JOIN LATERAL (
            SELECT v.version, v.favorite_count FROM content.user_versions v WHERE v.user_id = p_users[e.w] OFFSET 0) uv
        LEFT JOIN LATERAL (
            SELECT i.favorited_at, i.nickname, i.position, i.read_at, i.unliked_at FROM content.item_states i
            WHERE i.user_id = p_users[e.w] AND i.item_id = e.item OFFSET 0) s ON true
    ), transitioned AS (
        -- write_batch's transitions; toggle_favorite favorites an item that is not favorited
        -- (whose nickname and position are then empty) and unfavorites one that is.
        SELECT e.*,
            CASE e.t WHEN 'favorite' THEN COALESCE(e.old_favorited, now_at) WHEN 'unfavorite' THEN NULL
                WHEN 'toggle_favorite' THEN CASE WHEN e.old_favorited IS NULL THEN now_at END
                ELSE e.old_favorited END AS new_favorited,
            CASE e.t WHEN 'favorite' THEN CASE WHEN p_set_nicknames[e.w] THEN p_nicknames[e.w] ELSE e.old_nickname END
                WHEN 'unfavorite' THEN NULL WHEN 'toggle_favorite' THEN NULL
                ELSE e.old_nickname END AS new_nickname,
            CASE e.t WHEN 'favorite' THEN CASE WHEN p_set_positions[e.w] THEN p_positions[e.w] ELSE e.old_position END
                WHEN 'unfavorite' THEN NULL WHEN 'toggle_favorite' THEN NULL
                ELSE e.old_position END AS new_position,
            CASE e.t WHEN 'mark_read' THEN COALESCE(e.old_read, now_at) WHEN 'unmark_read' THEN NULL
                ELSE e.old_read END AS new_read,
            CASE e.t WHEN 'unlike' THEN COALESCE(e.old_unliked, now_at) WHEN 'remove_unlike' THEN NULL
                ELSE e.old_unliked END AS new_unliked
        FROM entries e
    ), compared AS (
        SELECT t.*,
            (t.new_favorited, t.new_nickname, t.new_position, t.new_read, t.new_unliked) IS DISTINCT FROM
                (t.old_favorited, t.old_nickname, t.old_position, t.old_read, t.old_unliked) AS is_changed,
            (t.new_favorited IS NOT NULL)::integer - (t.old_favorited IS NOT NULL)::integer AS favorite_delta
        FROM transitioned t
    ), numbered AS (
        -- A changed entry's version: its user's version before the call plus the changed
        -- entries of that user up to it. The favorites a user holds after each of its writes,
        -- and what each write adds.
        SELECT c.*,
            c.base + count(*) FILTER (WHERE c.is_changed) OVER (PARTITION BY c.u ORDER BY c.w, c.n) AS version,
            c.favorites + sum(c.favorite_delta) OVER (PARTITION BY c.u ORDER BY c.w) AS favorites_after,
            sum(c.favorite_delta) OVER (PARTITION BY c.u ORDER BY c.w RANGE BETWEEN CURRENT ROW AND CURRENT ROW) AS write_delta
        FROM compared c
    ), written AS (
        INSERT INTO content.item_states AS s
            (user_id, item_id, favorited_at, nickname, position, read_at, unliked_at, updated_at, version)
        SELECT n.u, n.item, n.new_favorited, n.new_nickname, n.new_position, n.new_read, n.new_unliked, now_at, n.version
        FROM numbered n WHERE n.is_changed
        ON CONFLICT (user_id, item_id) DO UPDATE SET
            favorited_at = excluded.favorited_at, nickname = excluded.nickname, position = excluded.position,
            read_at = excluded.read_at, unliked_at = excluded.unliked_at,
            updated_at = excluded.updated_at, version = excluded.version
    ), counted AS (
        UPDATE content.user_versions v
        SET version = v.version + d.taken, favorite_count = v.favorite_count + d.delta
        FROM (SELECT n.u, count(*) FILTER (WHERE n.is_changed) AS taken, sum(n.favorite_delta) AS delta
              FROM numbered n GROUP BY n.u) d
        WHERE v.user_id = d.u AND d.taken > 0
    )
    -- Every row is read, so a write over the limit always raises (and nothing of the call stays).
    SELECT n.w, n.item, (date_part('epoch', n.new_favorited) * 1000)::bigint, n.new_nickname, n.new_position,
        (date_part('epoch', n.new_read) * 1000)::bigint, (date_part('epoch', n.new_unliked) * 1000)::bigint,
        CASE WHEN n.write_delta > 0 AND n.favorites_after > p_max_favorites
            THEN content.refuse_favorites_over(p_max_favorites) ELSE n.is_changed END
    FROM numbered n ORDER BY n.n;
END
$$;
