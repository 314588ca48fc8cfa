-- Every loaded row with its identity resolved from today's reference tables.
-- `results` keeps names as published; this model adds the canonical accelerator (from
-- stg_accelerator_names), the canonical benchmark and its output unit (from ref_benchmarks, matched
-- case-insensitively on the published model name; when that name is a category such as "VLM", on
-- the model actually run). benchmark falls back to the published model name when no alias matches
-- (benchmark_matched = false). Rebuilt at every materialize, so an edited reference CSV reaches
-- every row without a refetch.
WITH aliases AS (
    SELECT lower(trim(alias)) AS alias, benchmark, kind FROM ref_benchmarks
),
resolved AS (
    SELECT
        r.*,
        n.accelerator,
        CASE WHEN by_model.kind = 'category' THEN by_used.benchmark ELSE by_model.benchmark END
            AS resolved_benchmark
    FROM results AS r
    LEFT JOIN stg_accelerator_names AS n USING (accelerator_raw)
    LEFT JOIN aliases AS by_model ON by_model.alias = lower(trim(r.model))
    LEFT JOIN aliases AS by_used ON by_used.alias = lower(trim(r.used_model)) AND by_used.kind = 'benchmark'
)
SELECT
    resolved.* EXCLUDE (resolved_benchmark),
    coalesce(resolved_benchmark, model) AS benchmark,
    resolved_benchmark IS NOT NULL AS benchmark_matched,
    b.output_unit
FROM resolved
LEFT JOIN (SELECT DISTINCT benchmark, output_unit FROM ref_benchmarks WHERE kind = 'benchmark') AS b
  ON b.benchmark = resolved.resolved_benchmark
