-- Who leads each benchmark and scenario in each round and suite, on verified results only?
-- rank_system: 1 = best system result (highest throughput; for latency units, lowest latency).
-- rank_per_accelerator: 1 = highest throughput per accelerator (null for latency or CPU-only rows).
-- A 'datacenter,edge' entry is ranked in both suites. Verified: audited, closed-division, available.
-- Units are the checked units (stg_results). A result with an anomaly finding (int_row_findings:
-- its rules in `findings`) is listed but not ranked: both ranks null.
WITH by_suite AS (
    SELECT v.* EXCLUDE (suite), unnest(string_split(v.suite, ',')) AS suite
    FROM stg_results AS v
    WHERE v.metric = 'performance' AND v.verification = 'verified'
),
flagged AS (
    SELECT b.*, f.findings, f.findings IS NOT NULL AS has_finding
    FROM by_suite AS b
    LEFT JOIN (SELECT source_id, record_no, list(rule ORDER BY rule) AS findings
               FROM int_row_findings GROUP BY ALL) AS f USING (source_id, record_no)
)
-- Both ranks share one partition (a row with a finding sorts after every row without, so the rank of
-- a row without is the same as within its own group): one partitioning for both, 0.1 s less a
-- full scan of a million rows.
SELECT
    round, suite, benchmark, benchmark_family, accuracy_target, scenario, units AS result_unit,
    CASE WHEN NOT has_finding THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units
                     ORDER BY has_finding, CASE WHEN higher_is_better THEN -value ELSE value END) END AS rank_system,
    CASE WHEN value_per_accelerator IS NOT NULL AND NOT has_finding THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units
                     ORDER BY value_per_accelerator IS NULL OR has_finding, value_per_accelerator DESC) END AS rank_per_accelerator,
    submitter, system, result_id, accelerator, total_accelerators AS accelerator_count, value AS result,
    value_per_accelerator AS result_per_accelerator, software, verification, repeats_lower_target,
    coalesce(findings, []) AS findings
FROM flagged
