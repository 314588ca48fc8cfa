-- The canonical benchmark of every distinct published (model, used_model) pair in `results`.
-- benchmark: the benchmark of ref_benchmarks whose alias is the published model name, matched
--   case-insensitively; when that name is a category such as "VLM", the benchmark of the model
--   actually run (used_model). Null when no alias matches (staging then keeps the published name).
-- output_unit: that benchmark's (tokens, samples...).
-- benchmark_family, accuracy_target: the benchmark (or, unmatched, the published model name) without
--   and with its accuracy target (llama2-70b-99.9: llama2-70b and '99.9'; null for one target).
WITH aliases AS (
    SELECT lower(trim(alias)) AS alias, benchmark, kind FROM ref_benchmarks
),
names AS (
    SELECT DISTINCT model, used_model FROM results
),
resolved AS (
    SELECT
        n.model, n.used_model,
        CASE WHEN m.kind = 'category' THEN u.benchmark ELSE m.benchmark END AS benchmark
    FROM names AS n
    LEFT JOIN aliases AS m ON m.alias = lower(trim(n.model))
    LEFT JOIN aliases AS u ON u.alias = lower(trim(n.used_model)) AND u.kind = 'benchmark'
),
outputs AS (
    SELECT DISTINCT benchmark, output_unit FROM ref_benchmarks WHERE kind = 'benchmark'
)
SELECT r.model, r.used_model, r.benchmark, o.output_unit,
       regexp_replace(coalesce(r.benchmark, r.model), '-(9[0-9](\.9)?)$', '') AS benchmark_family,
       nullif(regexp_extract(coalesce(r.benchmark, r.model), '-(9[0-9](\.9)?)$', 1), '') AS accuracy_target
FROM resolved AS r
LEFT JOIN outputs AS o USING (benchmark)
