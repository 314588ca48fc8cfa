-- What did the tree ingest (`mlperf-wh trees`) find for each file it asked for?
-- One row per (round, path) of tree_files: a run folder's summary (whichever file it was read from:
-- LoadGen's mlperf_log_summary.txt, or the endpoint harness's result_summary.json, results.json or
-- report.txt) or a system description, with its lineage and status (loaded, quarantined, missing,
-- failed, unrecognized: the folder holds files, none of them of a kind the warehouse reads; files_held
-- names them, as `drift` reports them).
SELECT * FROM tree_files
