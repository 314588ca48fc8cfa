-- Which MLPerf Inference rounds does the warehouse know of, loaded or not, and when was each published?
-- One row per round of the round table (`rounds`: the registry, warehouse/identity/reference/rounds.toml,
-- and the rounds the watcher found), with round_order to sort them (v10.0 after v9.1), whether rows
-- of it are loaded from its official table or, for a round MLCommons published no table of, rebuilt
-- from its submission tree (loaded), and whether it has a published table at all (has_table: the
-- registry lists a file for it).
SELECT r.*, round_order(r.round) AS round_order,
       r.round IN (SELECT round FROM sources WHERE origin IN ('official', 'tree') AND rows_loaded > 0) AS loaded,
       len(r.files) > 0 AS has_table
FROM rounds AS r
