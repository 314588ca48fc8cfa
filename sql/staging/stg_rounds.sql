-- Which MLPerf Inference rounds does the warehouse know of, loaded or not, and when was each published?
-- One row per round of the round table (`rounds`: the registry, warehouse/identity/reference/rounds.toml,
-- and the rounds the watcher found), with round_order to sort them (v10.0 after v9.1) and whether
-- official rows of it are loaded.
SELECT r.*, round_order(r.round) AS round_order,
       r.round IN (SELECT round FROM sources WHERE origin = 'official' AND rows_loaded > 0) AS loaded
FROM rounds AS r
