-- How much work does each result do per unit of energy, on its measured power?
-- One row per performance row with a measured power figure of the same run (stg_measured_power, basis
-- 'measured system power': power measured at the wall for the whole system under test), from a
-- published table (v4.1 on) or read from a round's submission tree as MLCommons' checker reads it
-- (measured_from; v1.1 and v2.1 in the shared data):
--   Offline, Server, Interactive: average watts during the run; throughput_per_joule = throughput /
--     watts (a rate per watt is work per joule), per kW x 1000;
--   SingleStream, MultiStream: energy per query, 'Joules' (to v2.1) or 'millijoules' (from v3.0);
--     joules_per_query in joules, queries_per_joule = 1 / joules_per_query, and samples_per_joule =
--     samples_per_query / joules_per_query (a MultiStream query holds 8 samples from v2.0; before, the
--     checker's figure was already per sample: stg_measured_power).
-- samples_per_joule is also given for a Samples/s or Queries/s rate (result / watts); work_per_joule
-- and work_unit are the one figure per row the efficiency marts compare (int_energy_efficiency).
-- power_setting: 'MaxQ' (power-optimized entry) or 'MaxP'. Estimated power never appears here
-- (token_economics keeps it in columns of its own).
SELECT
    round, submitter, system, result_id, run_path, accelerator, cpu,
    CASE WHEN hardware_kind = 'cpu' THEN hardware_count END AS cpu_count,
    total_accelerators AS accelerator_count, partition, benchmark, scenario, value AS result, units AS result_unit,
    power_basis, measured_from, power_setting, power_result, power_unit,
    CASE WHEN power_unit = 'Watts' THEN measured_watts END AS measured_watts, watts_per_accelerator,
    CASE WHEN power_unit = 'Watts' THEN value / measured_watts END AS throughput_per_joule,
    CASE WHEN power_unit = 'Watts' THEN value / measured_watts * 1000 END AS throughput_per_kw,
    tokens_per_joule, joules_per_query,
    1 / joules_per_query AS queries_per_joule, samples_per_query, samples_per_joule, joules_per_sample,
    work_unit, work_per_joule, power_samples, power_window_s, power_rule, spl_path, detail_path,
    unit_verdict, verification, procurement_grade, source_id
FROM int_energy_efficiency
