-- Where does each verified performance result rank in its round, suite, benchmark, scenario and unit?
-- One row per (verified performance row, suite): a 'datacenter,edge' entry is ranked in both suites.
-- rank_system: 1 = best system result (highest throughput; for latency units, lowest latency).
-- rank_per_accelerator: 1 = highest throughput per accelerator (null for latency or CPU-only rows, and
--   for a mixed cluster: several accelerator models in one system, named 'MI300X + MI325X', whose
--   throughput per accelerator belongs to no one model).
-- A partition of a device (stg_results.partition: one MIG 1g.10gb instance of an A100) is never ranked
--   beside whole devices: both ranks are within the rows of the same partition profile (whole devices:
--   partition null), rank_per_accelerator there by the value per partition.
-- findings: the anomaly rules that name the row (int_result_eligibility: its own and the pair findings
--   that blame it). Only a procurement-grade row is ranked (int_result_eligibility): a row with a
--   finding, or one that does not compare as its hardware (an inference, a run without its
--   accelerator), is listed with both ranks null; excluded_because says why (reason_code: its code).
-- Stored: two ranks over every verified row are a sort each, half of what a query of `leaderboard`
-- cost when it computed them (1.03 -> 0.49 s on a million rows, bench/views_bench.py). Both share one
-- partition: an unranked row sorts after every ranked one, so the rank of a ranked row is the
-- same as within its own group.
WITH by_suite AS (
    SELECT source_id, record_no, round, benchmark, scenario, units, value, higher_is_better,
           coalesce(value_per_partition, value_per_accelerator) AS value_per_unit, partition,
           coalesce(accelerator LIKE '% + %', false) AS mixed,
           unnest(string_split(suite, ',')) AS suite
    FROM stg_results
    WHERE metric = 'performance' AND verification = 'verified'
),
flagged AS (
    SELECT b.*, e.findings, e.reason_code, e.excluded_because, NOT e.procurement_grade AS unranked
    FROM by_suite AS b
    JOIN int_result_eligibility AS e USING (source_id, record_no)
)
SELECT
    source_id, record_no, suite, findings, reason_code, excluded_because,
    CASE WHEN NOT unranked THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units, partition
                     ORDER BY unranked, CASE WHEN higher_is_better THEN -value ELSE value END) END AS rank_system,
    CASE WHEN value_per_unit IS NOT NULL AND NOT unranked AND NOT mixed THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units, partition
                     ORDER BY value_per_unit IS NULL OR unranked OR mixed, value_per_unit DESC)
    END AS rank_per_accelerator
FROM flagged
