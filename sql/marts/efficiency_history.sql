-- How much more work per joule did each part do, round by round, on the same benchmark and scenario at
-- the same size, power-optimized and performance entries apart?
-- One row per (part, count, partition instances, power setting, benchmark, scenario, work unit, round)
-- with a measured power figure: the best verified row per joule of that hardware in the round, whoever
-- submitted it (int_energy_efficiency best_of_hardware: usable rows first, by the one eligibility rule;
-- only when none is usable the best of the others, and then not procurement grade). Basis: measured
-- system power only (power_basis), from a published table (v4.1 on) or read from the round's tree as
-- the checker reads it (measured_from; run_path names the run folder, result_id is null for a tree row).
-- accelerator: the part as sold (its variant), or the partition of a partitioned device; cpu: the
--   processor of a CPU-only system (hardware_kind says which); accelerator_count: the devices;
--   cpu_count: the processors of a CPU-only system; partition_instances: for a partition, the instances
--   the run used. A series keeps one of each, as accelerator_history's (docs/definitions.md 11, 13, 16).
-- power_setting: 'MaxQ' (a power-optimized entry) or 'MaxP' (a performance entry measured at the wall):
--   two series, never one gain across them (int_energy_efficiency says how it is read).
-- work_per_joule: samples or tokens (work_unit) per joule: result / measured_watts for Offline, Server,
--   Interactive; samples per query / joules per query for SingleStream, MultiStream. Higher is better.
-- round_previous, work_per_joule_previous, rounds_skipped, rounds_power_not_read, comparable_with_previous,
-- not_comparable_because, gain_from_previous, round_first, gain_since_first: int_efficiency_series.
-- has_finding: an anomaly finding names the performance row (any: questioning ones too).
-- procurement_grade: comparable with the previous round's figure and both figures procurement grade by
--   the one eligibility rule (int_result_eligibility): verified, comparable as their hardware, no
--   finding their own evidence shows.
SELECT
    CASE WHEN s.hardware_kind = 'accelerator' THEN s.hardware END AS accelerator,
    CASE WHEN s.hardware_kind = 'cpu' THEN s.hardware END AS cpu, s.hardware_kind,
    s.total_accelerators AS accelerator_count,
    CASE WHEN s.hardware_kind = 'cpu' THEN s.hardware_count END AS cpu_count,
    s.partition_instances, s.power_setting, s.benchmark, s.scenario, s.work_unit, s.round, o.published_on,
    s.work_per_joule, s.samples_per_joule, s.tokens_per_joule, s.joules_per_sample, s.measured_watts,
    s.watts_per_accelerator, s.value AS result, s.units AS result_unit, s.power_result, s.power_unit,
    s.power_basis, s.measured_from, s.submitter, s.system, s.result_id, s.run_path, s.source_id,
    s.era, s.measures, s.round_previous, s.work_per_joule_previous, s.previous.run_path AS run_path_previous,
    s.rounds_skipped, s.rounds_power_not_read, s.comparable_with_previous, s.not_comparable_because,
    s.gain_from_previous, s.round_first, s.work_per_joule_first, s.gain_since_first, s.has_finding,
    s.pair_procurement_grade AS procurement_grade
FROM int_efficiency_series AS s
LEFT JOIN stg_rounds AS o ON o.round = s.round
