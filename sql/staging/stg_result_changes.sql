-- What did each load change in the published rows, field by field?
-- One row per changed field of one result (result_changes, written by the loader in the load's own
-- transaction: warehouse/ingest/changes.py): 'added' and 'withdrawn' rows carry the result's value,
-- 'changed' rows one published field, old -> new, as text; 'quarantined' rows the last good value
-- (kept, stale) -> the value the new table publishes in a failed record, with the reason;
-- 'restored' rows the kept value -> the good one published again. With the load event that saw it (the
-- same source and loaded_at): the kind of run, its flow run, and the file's checksum before and after.
SELECT c.*, e.run_kind, e.flow_run_id, e.sha256 AS file_sha256, e.previous_sha256 AS previous_file_sha256
FROM result_changes AS c
LEFT JOIN load_events AS e
       ON e.source_id = c.source_id AND e.loaded_at = c.loaded_at AND e.status IN ('loaded', 'reloaded')
