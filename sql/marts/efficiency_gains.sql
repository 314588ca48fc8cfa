-- How much more work per joule did software give the same hardware between rounds, and a new generation
-- over its predecessor in the same round, power-optimized and performance entries apart?
-- One row per pair, on measured system power only (int_energy_efficiency), each side the best verified
-- row per joule of its hardware at its size (best_of_hardware), both sides of one power setting (MaxQ
-- with MaxQ, MaxP with MaxP: a gain never crosses them), benchmark, scenario and work unit:
--   kind 'software': the same part, count, partition instances and power setting, from the previous
--     round of its series to this one within one era of the benchmark (int_efficiency_series); what the
--     software, and whoever ran it, gained on that hardware. same_submitter, same_system say whether one
--     submitter's same system ran both (the "software alone" reading); rounds_power_not_read: rounds
--     between of which the warehouse holds no measured power (the series may have run there);
--   kind 'generation': accelerator_to succeeds accelerator_from along the predecessor chain
--     (stg_successions: Jetson AGX Orin -> Jetson AGX Xavier; generations_apart steps), both of one
--     segment and form factor, in the same round at the same accelerator count, as
--     int_generation_speedups pairs them for speed: the hardware's gain alone;
--   kind 'generation_and_software': the same pair where the predecessor was not measured in the
--     successor's round: the successor against the predecessor's latest earlier round with a measured
--     figure, within one era of the benchmark. Measured power is rare (a few dozen runs a round), so this
--     is often the only pair there is; the gain mixes the new part with the newer software
--     (rounds_power_not_read lists the rounds between of which no power figure is held).
-- gain = work_per_joule_to / work_per_joule_from (above 1: more work per joule on the newer side).
-- same_stack: both sides' serving stack families are known and equal.
-- procurement_grade: both sides procurement grade by the one eligibility rule (int_result_eligibility:
--   verified, comparable as their hardware, no finding their own evidence shows), as for a speed gain.
WITH software AS (
    SELECT 'software' AS kind, s.power_setting, s.benchmark, s.scenario, s.work_unit, s.era,
           s.hardware_kind, s.hardware AS hardware_from, s.hardware AS hardware_to, NULL::BIGINT AS generations_apart,
           s.total_accelerators, s.hardware_count, s.partition_instances,
           s.previous.round AS round_from, s.round AS round_to,
           s.previous.work_per_joule AS work_per_joule_from, s.work_per_joule AS work_per_joule_to,
           s.previous.submitter AS submitter_from, s.submitter AS submitter_to,
           s.previous.system AS system_from, s.system AS system_to,
           s.previous.submitter = s.submitter AND s.previous.platform = s.platform AS same_system,
           s.previous.stack AS stack_from, s.stack AS stack_to,
           s.previous.result_id AS result_id_from, s.result_id AS result_id_to,
           s.previous.run_path AS run_path_from, s.run_path AS run_path_to,
           s.rounds_power_not_read, s.pair_procurement_grade AS procurement_grade
    FROM int_efficiency_series AS s
    WHERE s.comparable_with_previous
),
sides AS (
    SELECT * FROM int_energy_efficiency WHERE best_of_hardware AND partition IS NULL
),
successions AS (
    -- each successor's side with each predecessor's side of the same key, in its round or before it
    SELECT n.*, c.steps, b.round AS b_round, b.round_order AS b_round_order,
           b.work_per_joule AS b_work_per_joule, b.submitter AS b_submitter, b.system AS b_system,
           b.stack AS b_stack, b.result_id AS b_result_id, b.run_path AS b_run_path,
           b.procurement_grade AS b_procurement_grade, b.hardware AS b_hardware
    FROM sides AS n
    JOIN stg_successions AS c ON c.hardware = n.hardware
    JOIN sides AS b
      ON  b.hardware = c.ancestor AND b.round_order <= n.round_order AND b.hardware_count = n.hardware_count
      AND b.total_accelerators IS NOT DISTINCT FROM n.total_accelerators AND b.power_setting = n.power_setting
      AND b.benchmark = n.benchmark AND b.scenario = n.scenario AND b.work_unit = n.work_unit
      AND b.era IS NOT DISTINCT FROM n.era AND b.segment = n.segment AND b.form_factor = n.form_factor
),
paired AS (
    -- the same round where the predecessor ran in it, else its latest earlier round
    SELECT * FROM successions
    QUALIFY b_round_order = max(b_round_order) OVER (PARTITION BY source_id, record_no, b_hardware)
),
generation AS (
    SELECT CASE WHEN n.b_round = n.round THEN 'generation' ELSE 'generation_and_software' END AS kind, n.power_setting, n.benchmark, n.scenario, n.work_unit, n.era,
           n.hardware_kind, n.b_hardware AS hardware_from, n.hardware AS hardware_to, n.steps AS generations_apart,
           n.total_accelerators, n.hardware_count, NULL::BIGINT AS partition_instances,
           n.b_round AS round_from, n.round AS round_to,
           n.b_work_per_joule AS work_per_joule_from, n.work_per_joule AS work_per_joule_to,
           n.b_submitter AS submitter_from, n.submitter AS submitter_to,
           n.b_system AS system_from, n.system AS system_to, false AS same_system,
           n.b_stack AS stack_from, n.stack AS stack_to,
           n.b_result_id AS result_id_from, n.result_id AS result_id_to,
           n.b_run_path AS run_path_from, n.run_path AS run_path_to,
           coalesce((SELECT list(r.round ORDER BY r.round_order) FROM stg_rounds AS r
                     WHERE r.round_order > n.b_round_order AND r.round_order < n.round_order
                       AND r.round NOT IN (SELECT round FROM int_energy_efficiency)), []) AS rounds_power_not_read,
           n.procurement_grade AND n.b_procurement_grade AS procurement_grade
    FROM paired AS n
)
SELECT
    kind, power_setting, benchmark, scenario, work_unit, era, hardware_kind,
    CASE WHEN hardware_kind = 'accelerator' THEN hardware_from END AS accelerator_from,
    CASE WHEN hardware_kind = 'accelerator' THEN hardware_to END AS accelerator_to,
    CASE WHEN hardware_kind = 'cpu' THEN hardware_from END AS cpu_from,
    CASE WHEN hardware_kind = 'cpu' THEN hardware_to END AS cpu_to,
    generations_apart, total_accelerators AS accelerator_count,
    CASE WHEN hardware_kind = 'cpu' THEN hardware_count END AS cpu_count, partition_instances,
    round_from, round_to, work_per_joule_from, work_per_joule_to, work_per_joule_to / work_per_joule_from AS gain,
    submitter_from, submitter_to, submitter_from = submitter_to AS same_submitter, system_from, system_to,
    same_system, stack_from, stack_to, coalesce(stack_from = stack_to, false) AS same_stack,
    result_id_from, result_id_to, run_path_from, run_path_to, rounds_power_not_read, procurement_grade
FROM (FROM software UNION ALL BY NAME FROM generation)
