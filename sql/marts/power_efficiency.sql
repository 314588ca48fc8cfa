-- How much work does each result do per unit of energy, on its measured power?
-- One row per performance row with a measured MLPerf power result of the same entry, benchmark and
-- scenario (power is measured at the wall for the whole system under test):
--   Offline, Server, Interactive: average watts during the run; throughput_per_joule = throughput /
--     watts (a rate per watt is work per joule), per kW x 1000;
--   SingleStream, MultiStream: energy per query in millijoules, published as 'millijoules';
--     joules_per_query = millijoules / 1000, queries_per_joule = 1 / joules_per_query, and
--     samples_per_joule = samples_per_query / joules_per_query, a MultiStream query holding 8 samples
--     (MLPerf's MultiStream query size) and a SingleStream query one.
-- Estimated power never appears here (token_economics keeps it in columns of its own).
WITH power AS (
    SELECT source_id, entry_id, model, used_model, scenario, value AS power_value, units AS power_unit
    FROM stg_power_results
)
SELECT
    r.round, r.submitter, r.system, r.result_id, r.accelerator, r.cpu,
    CASE WHEN r.hardware_kind = 'cpu' THEN r.hardware_count END AS cpu_count,
    r.total_accelerators AS accelerator_count, r.benchmark, r.scenario, r.value AS result, r.units AS result_unit,
    p.power_value AS power_result, p.power_unit,
    CASE WHEN p.power_unit = 'Watts' THEN p.power_value END AS measured_watts,
    CASE WHEN p.power_unit = 'Watts' AND r.higher_is_better THEN r.value / p.power_value END AS throughput_per_joule,
    CASE WHEN p.power_unit = 'Watts' AND r.higher_is_better THEN r.value / p.power_value * 1000 END
        AS throughput_per_kw,
    CASE WHEN p.power_unit = 'Watts' AND r.higher_is_better THEN r.tokens_per_second / p.power_value END
        AS tokens_per_joule,
    CASE WHEN p.power_unit LIKE 'millijoules%' THEN p.power_value / 1000 END AS joules_per_query,
    CASE WHEN p.power_unit LIKE 'millijoules%' THEN 1000 / p.power_value END AS queries_per_joule,
    CASE WHEN p.power_unit LIKE 'millijoules%'
         THEN CASE r.scenario WHEN 'MultiStream' THEN 8 ELSE 1 END END AS samples_per_query,
    CASE WHEN p.power_unit LIKE 'millijoules%'
         THEN CASE r.scenario WHEN 'MultiStream' THEN 8 ELSE 1 END * 1000 / p.power_value END AS samples_per_joule,
    r.unit_verdict, r.verification
FROM stg_results AS r
JOIN power AS p
  ON  p.source_id = r.source_id AND p.entry_id = r.entry_id AND p.model = r.model
  AND p.used_model IS NOT DISTINCT FROM r.used_model AND p.scenario = r.scenario
WHERE r.metric = 'performance'
