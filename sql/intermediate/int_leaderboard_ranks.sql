-- Where does each verified performance result rank in its round, suite, benchmark, scenario and unit?
-- One row per (verified performance row, suite): a 'datacenter,edge' entry is ranked in both suites.
-- rank_system: 1 = best system result (highest throughput; for latency units, lowest latency).
-- rank_per_accelerator: 1 = highest throughput per accelerator (null for latency or CPU-only rows, and
--   for a mixed cluster: several accelerator models in one system, named 'MI300X + MI325X', whose
--   throughput per accelerator belongs to no one model).
-- findings: the anomaly rules the row breaks (int_row_findings); a row with a finding is not ranked
--   (both ranks null).
-- Stored: two ranks over every verified row are a sort each, half of what a query of `leaderboard`
-- cost when it computed them (1.03 -> 0.49 s on a million rows, bench/views_bench.py). Both share one
-- partition: a row with a finding sorts after every row without, so the rank of a row without is the
-- same as within its own group.
WITH by_suite AS (
    SELECT source_id, record_no, round, benchmark, scenario, units, value, higher_is_better,
           value_per_accelerator, coalesce(accelerator LIKE '% + %', false) AS mixed,
           unnest(string_split(suite, ',')) AS suite
    FROM stg_results
    WHERE metric = 'performance' AND verification = 'verified'
),
flagged AS (
    SELECT b.*, f.findings, f.findings IS NOT NULL AS has_finding
    FROM by_suite AS b
    LEFT JOIN (SELECT source_id, record_no, list(rule ORDER BY rule) AS findings
               FROM int_row_findings GROUP BY ALL) AS f USING (source_id, record_no)
)
SELECT
    source_id, record_no, suite, coalesce(findings, []) AS findings,
    CASE WHEN NOT has_finding THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units
                     ORDER BY has_finding, CASE WHEN higher_is_better THEN -value ELSE value END) END AS rank_system,
    CASE WHEN value_per_accelerator IS NOT NULL AND NOT has_finding AND NOT mixed THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units
                     ORDER BY value_per_accelerator IS NULL OR has_finding OR mixed, value_per_accelerator DESC)
    END AS rank_per_accelerator
FROM flagged
