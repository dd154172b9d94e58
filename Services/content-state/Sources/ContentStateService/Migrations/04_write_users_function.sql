-- The writes of several users as one statement. content-state runs each user's writes as a
-- call of write_batch (migration 3); when calls of different users wait for their turn
-- together (the service's cross-user write line), they go as one call of this function, so
-- the statement, its plan and its commit are paid once for all of them.
-- Group g is the call write_batch(p_users[g], ...) of the next p_counts[g] writes of the arrays
-- (p_sizes, p_transitions, p_set_nicknames, p_nicknames, p_set_positions, p_positions: one
-- element per write) and of their entries of p_items, in order; its rows are write_batch's
-- rows with user_index g in front. The same guarantees as write_batch's, per user:
--   * before any group runs, every user's `user_versions` row is locked, one at a time in uuid
--     order, so two calls of this function (and a call and write_batch, which locks one user)
--     never wait for each other in a cycle;
--   * a user may come in several groups: each group's write_batch reads the version and the
--     favorite count its previous group left, under the lock the statement holds;
--   * if any write would take its user past p_max_favorites, the whole call changes nothing
--     (SQLSTATE LK001); the service then runs each group as a write_batch call of its own.
CREATE FUNCTION content.write_users(
    p_users uuid[], p_counts integer[], p_sizes integer[], p_items text[], p_transitions text[],
    p_set_nicknames boolean[], p_nicknames text[], p_set_positions boolean[], p_positions bigint[],
    p_max_favorites integer)
RETURNS TABLE (
    user_index integer, write_index integer, item_id text, favorited_ms bigint, nickname text, "position" bigint,
    read_ms bigint, unliked_ms bigint, changed boolean)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    locking uuid;
    g integer;
    w integer;
    first_write integer := 1;
    last_write integer;
    first_entry integer := 1;
    entries integer;
BEGIN
    FOR locking IN SELECT DISTINCT u FROM unnest(p_users) AS u ORDER BY u LOOP
        PERFORM 1 FROM content.user_versions WHERE user_id = locking FOR UPDATE;
        IF NOT FOUND THEN
            -- A user's first write: the row is made (or, made meanwhile, waited for and locked).
            INSERT INTO content.user_versions AS v (user_id) VALUES (locking)
            ON CONFLICT (user_id) DO UPDATE SET version = v.version;
        END IF;
    END LOOP;

    FOR g IN 1 .. coalesce(cardinality(p_users), 0) LOOP
        last_write := first_write + p_counts[g] - 1;
        entries := 0;
        FOR w IN first_write .. last_write LOOP
            entries := entries + p_sizes[w];
        END LOOP;
        RETURN QUERY
            SELECT g, b.write_index, b.item_id, b.favorited_ms, b.nickname, b."position", b.read_ms, b.unliked_ms, b.changed
            FROM content.write_batch(
                p_users[g], p_sizes[first_write : last_write], p_items[first_entry : first_entry + entries - 1],
                p_transitions[first_write : last_write], p_set_nicknames[first_write : last_write],
                p_nicknames[first_write : last_write], p_set_positions[first_write : last_write],
                p_positions[first_write : last_write], p_max_favorites) AS b;
        first_write := last_write + 1;
        first_entry := first_entry + entries;
    END LOOP;
END
$$;
