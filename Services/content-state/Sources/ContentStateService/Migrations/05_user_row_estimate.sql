-- How many rows Postgres believes one user holds. ANALYZE learns the average, and where most
-- users hold a few rows the state query's plan (a prepared statement, planned once for every
-- user) read all of a user's rows and compared each with every id asked about, where it should
-- look each id up by the key: 45 ms for a user with 20,000 rows and 50 ids, 430 ms with 500
-- ids, against 0.2 and 0.9 ms by the key. Told that a user may hold many rows (one user per
-- 10,000 rows when no better figure is known), the plans look ids up by the key and read the
-- changes feed's index in order, whatever the spread of users. STATISTICS 1 keeps one most
-- common user at most: in a table ANALYZE reads whole, a list of light users capped every
-- other user's estimate at theirs.
ALTER TABLE content.item_states
    ALTER COLUMN user_id SET (n_distinct = -0.0001),
    ALTER COLUMN user_id SET STATISTICS 1;
-- A table with rows is analyzed now, so that the estimate holds before autovacuum's next
-- ANALYZE (which waits for a tenth of the rows to change). An empty one is left unanalyzed:
-- Postgres then plans for a table of some pages; analyzed empty, it planned sequential scans
-- that prepared statements kept while the table grew (many-user writes: 8,000 -> 2,500 a second).
DO $$
BEGIN
    IF EXISTS (SELECT FROM content.item_states) THEN
        ANALYZE content.item_states;
    END IF;
END
$$;
