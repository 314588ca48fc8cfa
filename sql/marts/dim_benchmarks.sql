-- Which benchmarks does the warehouse know, under which published names, and what do they produce?
-- One row per canonical benchmark of warehouse/identity/reference/benchmarks.csv (stg_benchmarks),
-- with every alias that resolves to it and how many performance rows it has.
-- llm = true when the benchmark's output unit is tokens.
WITH canonical AS (
    SELECT benchmark, any_value(output_unit) AS output_unit, list(alias ORDER BY alias) AS aliases
    FROM stg_benchmarks
    WHERE kind = 'benchmark'
    GROUP BY benchmark
),
counted AS (
    SELECT benchmark, count(*) AS result_rows,
           count(*) FILTER (WHERE verification = 'verified') AS verified_rows
    FROM stg_results
    WHERE metric = 'performance'
    GROUP BY benchmark
)
SELECT
    c.benchmark, c.output_unit, c.output_unit = 'tokens' AS llm, c.aliases,
    coalesce(n.result_rows, 0) AS result_rows,
    coalesce(n.verified_rows, 0) AS verified_rows
FROM canonical AS c
LEFT JOIN counted AS n ON n.benchmark = c.benchmark
