-- What power did each entry measure, per benchmark and scenario?
-- One row per power result of `results` (metric 'power'), as published: Watts (Offline, Server:
-- average wall power of the whole system under test) or millijoules (SingleStream, MultiStream: energy
-- per query), keyed as its performance row is (source_id, entry_id, model, used_model, scenario).
-- Read from `results` directly: power needs no identity, and stg_results is the dearer view.
SELECT source_id, entry_id, model, used_model, scenario, value, units
FROM results
WHERE metric = 'power'
