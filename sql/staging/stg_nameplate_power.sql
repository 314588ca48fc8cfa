-- What power does each entry state its whole system can draw, by its nameplate?
-- One row per performance row of `results` whose table gives the system's design power: v6.1's
-- `design_power_watts` (kept as published in the row's `extra`), which MLCommons' checker writes for a
-- power submission (checks/system_check.py nameplate_power_check): the system description's
-- system_power_capacity, else the sum over every node, switch and rack of its nameplate PSUs' capacities,
-- the redundant PSUs left out. Basis 'nameplate system power': a capacity the system is built for, not
-- what it drew, so never set beside a measurement ('measured system power', stg_measured_power) nor a
-- cited estimate.
-- nameplate_watts: the published figure as a number; a row the table gives "None" (no power submission),
-- an empty value, 0 or anything that is not a positive number has no row: absent, never zero.
WITH stated AS (
    SELECT source_id, record_no, round, json_extract_string(extra, '$.design_power_watts') AS published
    FROM results
    WHERE metric = 'performance' AND extra IS NOT NULL AND json_exists(extra, '$.design_power_watts')
)
SELECT source_id, record_no, round, 'nameplate system power' AS power_basis,
       published AS design_power_published, TRY_CAST(published AS DOUBLE) AS nameplate_watts
FROM stated
WHERE TRY_CAST(published AS DOUBLE) > 0
