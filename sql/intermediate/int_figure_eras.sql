-- In which era of its benchmark and scenario is each round's result, and so with which rounds does
-- it compare?
-- One row per distinct (round, benchmark, scenario) of the performance rows of stg_results.
-- era: the era-opening rows of stg_benchmark_eras that apply (benchmark itself or '*', scenario
--   itself or '*', round_from not after the round) and break comparability (comparable_with_previous
--   false), as text ('3d-unet-99 * from v2.0; * MultiStream from v2.0'); '' when none does. Two results
--   of one benchmark and scenario compare across rounds only when their era is the same: no change of
--   model, data set, accuracy target, latency bound or metric lies between them. A benchmark the table
--   does not list is one era.
-- measures: what the result measures in that round, the latest applying row of each (benchmark or
--   '*', scenario or '*') joined with '; '.
-- era_began_because: why the latest comparability break that applies happened (null: none).
WITH keys AS (
    SELECT DISTINCT round, round_order, benchmark, scenario FROM stg_results WHERE metric = 'performance'
),
applying AS (
    SELECT k.round, k.benchmark, k.scenario, e.benchmark AS era_benchmark, e.scenario AS era_scenario,
           e.round_from, e.round_order AS era_order, e.comparable_with_previous, e.measures, e.why
    FROM keys AS k
    JOIN stg_benchmark_eras AS e
      ON e.benchmark IN (k.benchmark, '*') AND e.scenario IN (k.scenario, '*') AND e.round_order <= k.round_order
),
latest AS (
    SELECT round, benchmark, scenario, era_benchmark, era_scenario, arg_max(measures, era_order) AS measures
    FROM applying GROUP BY ALL
)
SELECT
    k.round, k.benchmark, k.scenario,
    coalesce((SELECT string_agg(a.era_benchmark || ' ' || a.era_scenario || ' from ' || a.round_from, '; '
                                ORDER BY a.era_order, a.era_benchmark, a.era_scenario)
              FROM applying AS a
              WHERE a.round = k.round AND a.benchmark = k.benchmark AND a.scenario = k.scenario
                AND NOT a.comparable_with_previous), '') AS era,
    (SELECT string_agg(l.measures, '; ' ORDER BY l.era_benchmark = '*', l.era_scenario)
     FROM latest AS l WHERE l.round = k.round AND l.benchmark = k.benchmark AND l.scenario = k.scenario) AS measures,
    (SELECT arg_max(a.why, a.era_order) FROM applying AS a
     WHERE a.round = k.round AND a.benchmark = k.benchmark AND a.scenario = k.scenario
       AND NOT a.comparable_with_previous) AS era_began_because
FROM keys AS k
