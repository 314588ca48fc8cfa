-- Every performance result with its hardware identity, round order and value per accelerator.
-- round_order sorts rounds numerically (v10.0 after v9.1). value_per_accelerator is
-- value / total_accelerators for throughput units, null for latency and for CPU-only systems.
SELECT
    r.*,
    CAST(regexp_extract(r.round, '^v(\d+)\.(\d+)$', 1) AS INTEGER) * 1000
        + CAST(regexp_extract(r.round, '^v(\d+)\.(\d+)$', 2) AS INTEGER) AS round_order,
    a.vendor,
    a.family,
    a.generation,
    a.tdp_watts,
    CASE WHEN r.higher_is_better AND r.total_accelerators > 0
         THEN r.value / r.total_accelerators END AS value_per_accelerator
FROM stg_results AS r
LEFT JOIN stg_accelerators AS a USING (accelerator)
WHERE r.metric = 'performance'
