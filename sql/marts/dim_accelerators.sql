-- Which accelerators does the warehouse know, and what are they?
-- One row per canonical accelerator (stg_accelerators) with its vendor, family, generation order
-- (newer is larger, within one vendor), memory and design power, and how many performance rows name it.
-- result_rows = performance rows of any verification that resolve to this accelerator.
SELECT
    a.accelerator, a.vendor, a.family, a.generation, a.memory_gb, a.tdp_watts,
    count(p.round) AS result_rows,
    count(p.round) FILTER (WHERE p.verification = 'verified') AS verified_rows
FROM stg_accelerators AS a
LEFT JOIN stg_results AS p ON p.accelerator = a.accelerator AND p.metric = 'performance'
GROUP BY ALL
