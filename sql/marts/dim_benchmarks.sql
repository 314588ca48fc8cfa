-- Which benchmarks does the warehouse know, under which published names, what do they produce, and
-- which loaded rounds ran them?
-- One row per canonical benchmark of warehouse/identity/reference/benchmarks.csv (stg_benchmarks),
-- with every alias that resolves to it and how many performance rows it has.
-- llm = true when the benchmark's output unit is tokens.
-- first_round, last_round: the first and last loaded round with a performance row of it;
-- in_newest_round: the newest loaded round has one. A question about a benchmark the newest round did
-- not run answers from older rounds only: this column says so (README question 1).
WITH canonical AS (
    SELECT benchmark, any_value(output_unit) AS output_unit, list(alias ORDER BY alias) AS aliases
    FROM stg_benchmarks
    WHERE kind = 'benchmark'
    GROUP BY benchmark
),
counted AS (
    SELECT benchmark, count(*) AS result_rows,
           count(*) FILTER (WHERE verification = 'verified') AS verified_rows,
           arg_min(round, round_order) AS first_round, arg_max(round, round_order) AS last_round,
           max(round_order) AS last_round_order
    FROM stg_results
    WHERE metric = 'performance'
    GROUP BY benchmark
),
newest AS (
    SELECT max(round_order) AS round_order FROM stg_results WHERE metric = 'performance'
)
SELECT
    c.benchmark, c.output_unit, c.output_unit = 'tokens' AS llm, c.aliases,
    coalesce(n.result_rows, 0) AS result_rows,
    coalesce(n.verified_rows, 0) AS verified_rows,
    n.first_round, n.last_round,
    coalesce(n.last_round_order = (SELECT round_order FROM newest), false) AS in_newest_round
FROM canonical AS c
LEFT JOIN counted AS n ON n.benchmark = c.benchmark
