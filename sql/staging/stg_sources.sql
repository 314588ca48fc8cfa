-- Which files have been loaded, from where, and what did each load bring?
-- One row per source (the lineage table `sources`, one per source_id): URL, sha256, bytes, times,
-- row counts, the columns no format lists (unknown_columns) and the guards a load skipped (overrides).
SELECT * FROM sources
