-- What does each LLM result mean in tokens: per second, per accelerator, per rack, per joule and per
-- dollar-hour?
-- tokens_per_second: the result itself for units Tokens/s; for Samples/s (or Queries/s: one query is
--   one sample), the rate x the TOKENS_PER_SAMPLE the accuracy field reports (stg_results;
--   tokens_derived = true).
-- tokens_per_second_per_rack = tokens_per_second_per_accelerator x accelerators_per_rack, where the
--   rack capacity and its assumption come from stg_rack_capacity (null when the table has none).
-- watts: the measured power result of the same entry, benchmark and scenario when there is one
--   (watts_basis 'measured'), else accelerator TDP x total accelerators (watts_basis 'estimated'; it
--   leaves out hosts, memory, network and cooling).
-- tokens_per_joule = tokens_per_second / watts.
-- tokens_per_dollar_hour = tokens_per_second / (dollars_per_accelerator_hour x total_accelerators),
--   i.e. tokens/s bought per dollar spent each hour; null unless the user loaded a price for the
--   accelerator (`mlperf-wh prices load FILE`). Multiply by 3600 for tokens per dollar.
-- tokens_per_second_per_user: the interaction pattern of the run, 1 / mean time per output token
--   (int_latency_profile; null for Offline runs and until `mlperf-wh trees` has loaded the run summary).
WITH tokens AS (
    SELECT p.*, p.units <> 'Tokens/s' AS tokens_derived
    FROM stg_results AS p
    WHERE p.metric = 'performance' AND p.tokens_per_second IS NOT NULL
),
measured_power AS (
    SELECT source_id, entry_id, model, used_model, scenario, value AS watts
    FROM stg_results
    WHERE metric = 'power' AND units = 'Watts'
)
SELECT
    t.round, t.submitter, t.system, t.result_id, t.accelerator, t.total_accelerators,
    t.benchmark, t.scenario,
    t.tokens_per_second,
    t.tokens_derived,
    t.tokens_per_second / t.total_accelerators AS tokens_per_second_per_accelerator,
    rc.accelerators_per_rack,
    rc.assumption AS rack_assumption,
    t.tokens_per_second / t.total_accelerators * rc.accelerators_per_rack AS tokens_per_second_per_rack,
    coalesce(mp.watts, t.tdp_watts * t.total_accelerators) AS watts,
    CASE WHEN mp.watts IS NOT NULL THEN 'measured'
         WHEN t.tdp_watts IS NOT NULL AND t.total_accelerators IS NOT NULL THEN 'estimated' END AS watts_basis,
    t.tokens_per_second / coalesce(mp.watts, t.tdp_watts * t.total_accelerators) AS tokens_per_joule,
    t.tokens_per_second / (pr.dollars_per_accelerator_hour * t.total_accelerators) AS tokens_per_dollar_hour,
    pr.dollars_per_accelerator_hour,
    lp.tokens_per_second_per_user,
    t.verification
FROM tokens AS t
LEFT JOIN stg_rack_capacity AS rc USING (accelerator)
LEFT JOIN measured_power AS mp
  ON  mp.source_id = t.source_id AND mp.entry_id = t.entry_id AND mp.model = t.model
  AND mp.used_model IS NOT DISTINCT FROM t.used_model AND mp.scenario = t.scenario
LEFT JOIN stg_prices AS pr USING (accelerator)
LEFT JOIN int_latency_profile AS lp
  ON lp.source_id = t.source_id AND lp.record_no = t.record_no AND lp.units = t.units
