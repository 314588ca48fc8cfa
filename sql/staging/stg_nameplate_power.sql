-- What power does each entry state its whole system can draw, by its nameplate?
-- One row per performance row of `results` whose table states the system's design power: v6.1's
-- `design_power_watts` (kept as published in the row's `extra`), which MLCommons' checker writes for a
-- power submission (checks/system_check.py nameplate_power_check): the system description's
-- system_power_capacity, else the sum over every node, switch and rack of its nameplate PSUs' capacities,
-- the redundant PSUs left out. Basis 'nameplate system power': a capacity the system is built for, not
-- what it drew, so never set beside a measurement ('measured system power', stg_measured_power) nor a
-- cited estimate.
-- A row the table gives "None" (the checker's word for no power submission) or an empty value has no
-- row: absent, never zero. nameplate_watts: the published figure as a positive number of watts; null
-- when it is not one ("0", "n/a"): such a row is kept so `drift` names it (kind 'nameplate_power'),
-- and no figure is read from it.
WITH stated AS (
    SELECT source_id, record_no, round, json_extract_string(extra, '$.design_power_watts') AS published
    FROM results
    WHERE metric = 'performance' AND extra IS NOT NULL AND json_exists(extra, '$.design_power_watts')
)
SELECT source_id, record_no, round, 'nameplate system power' AS power_basis,
       published AS design_power_published,
       CASE WHEN TRY_CAST(published AS DOUBLE) > 0 THEN TRY_CAST(published AS DOUBLE) END AS nameplate_watts
FROM stated
WHERE published IS NOT NULL AND trim(published) NOT IN ('', 'None')
