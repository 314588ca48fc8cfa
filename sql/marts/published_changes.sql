-- Which published results did each load add, change or withdraw, and what did each changed field say
-- before and after?
-- One row per (load, result row, field): change 'added' or 'withdrawn' (field 'value': the result's
-- value after or before), or 'changed' (one row per published field the new table states otherwise:
-- value, notes, software, accelerator...); 'quarantined' (field 'value': the new table publishes the
-- row in a record that failed validation; its last good value -> the value as published, with the
-- record's reason; the value is kept, stale, not withdrawn) and 'restored' (a stale row published
-- good again: the kept value -> the new one). published_before and published_after are the field's
-- text as loaded. first_load: the source's first load (every row 'added'); a re-published round's
-- corrections are the rows of its later loads (NOT first_load).
SELECT
    loaded_at, round, source_id, result_id, change, field, published_before, published_after, reason,
    entry_id, model, used_model, scenario, metric, units AS published_unit,
    run_kind, flow_run_id, file_sha256, previous_file_sha256 IS NULL AS first_load
FROM stg_result_changes
