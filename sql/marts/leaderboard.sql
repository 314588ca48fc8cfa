-- Who leads each benchmark and scenario in each round and suite, on verified results only?
-- rank_system: 1 = best system result (highest throughput; for latency units, lowest latency).
-- rank_per_accelerator: 1 = highest throughput per accelerator (null for latency or CPU-only rows).
-- A 'datacenter,edge' entry is ranked in both suites. Verified: audited, closed-division, available.
WITH by_suite AS (
    SELECT v.* EXCLUDE (suite), unnest(string_split(v.suite, ',')) AS suite
    FROM stg_results AS v
    WHERE v.metric = 'performance' AND v.verification = 'verified'
)
SELECT
    round, suite, benchmark, scenario, units,
    rank() OVER (PARTITION BY round, suite, benchmark, scenario, units
                 ORDER BY CASE WHEN higher_is_better THEN -value ELSE value END) AS rank_system,
    CASE WHEN value_per_accelerator IS NOT NULL THEN
        rank() OVER (PARTITION BY round, suite, benchmark, scenario, units,
                                  value_per_accelerator IS NOT NULL
                     ORDER BY value_per_accelerator DESC) END AS rank_per_accelerator,
    submitter, system, result_id, accelerator, total_accelerators, value, value_per_accelerator,
    software, verification
FROM by_suite
