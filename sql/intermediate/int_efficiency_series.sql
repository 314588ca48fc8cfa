-- Round by round, how much work per joule did each part do on the same benchmark and scenario at the
-- same size and power setting, and against which previous round?
-- One row per (hardware, hardware count, accelerators, power setting, benchmark, scenario, work unit,
-- round): the best verified row per joule of that hardware in the round (int_energy_efficiency
-- best_of_hardware), the series' previous round and its first round of the era. A series keeps one
-- part (its variant, or a partition of it, docs/definitions.md sections 11, 13), one count of devices
-- and instances, one power setting (MaxQ and MaxP are two series) and one work unit.
-- previous: the previous round's row of the series (round, work_per_joule, era, procurement grade, and
--   what names it: submitter, system, result_id, run_path); rounds_skipped: the rounds between of which
--   the warehouse holds measured power but none of this series; rounds_power_not_read: the rounds between
--   (loaded or not) of which it holds no measured power figure at all (v2.0, whose tree's power files
--   the shared data does not hold; v1.0, v3.0...: not loaded), where the series may have run.
-- comparable_with_previous: the same era of the benchmark and scenario as the previous round's
--   (int_figure_eras); not_comparable_because: what changed, when it is not.
-- gain_from_previous = work_per_joule / previous work_per_joule (higher is better on both sides: above
--   1, more work per joule); gain_since_first: against round_first, the series' first round of the era.
-- pair_procurement_grade: comparable with the previous round and both rows procurement grade by the one
--   eligibility rule (int_result_eligibility).
-- Read by the marts efficiency_history (every row) and efficiency_gains (the pairs, kind 'software').
WITH best AS (
    SELECT *, len(findings) > 0 AS has_finding FROM int_energy_efficiency WHERE best_of_hardware
),
measured_rounds AS (
    SELECT DISTINCT round FROM int_energy_efficiency
),
firsts AS (
    SELECT hardware, hardware_count, total_accelerators, power_setting, benchmark, scenario, work_unit, era,
           arg_min(round, round_order) AS round_first, arg_min(work_per_joule, round_order) AS work_per_joule_first
    FROM best
    GROUP BY ALL
),
sequenced AS (
    SELECT b.*,
           lag({'round': b.round, 'round_order': b.round_order, 'work_per_joule': b.work_per_joule, 'era': b.era,
                'procurement_grade': b.procurement_grade, 'submitter': b.submitter, 'system': b.system,
                'platform': b.platform, 'result_id': b.result_id, 'run_path': b.run_path, 'stack': b.stack,
                'software': b.software}) OVER w AS previous,
           f.round_first, f.work_per_joule_first
    FROM best AS b
    JOIN firsts AS f
      ON  f.hardware = b.hardware AND f.hardware_count = b.hardware_count
      AND f.total_accelerators IS NOT DISTINCT FROM b.total_accelerators AND f.power_setting = b.power_setting
      AND f.benchmark = b.benchmark AND f.scenario = b.scenario AND f.work_unit = b.work_unit
      AND f.era IS NOT DISTINCT FROM b.era
    WINDOW w AS (PARTITION BY b.hardware, b.hardware_count, b.total_accelerators, b.power_setting, b.benchmark,
                              b.scenario, b.work_unit ORDER BY b.round_order)
),
between_rounds AS (
    SELECT k.previous_order, k.round_order,
           list(r.round ORDER BY r.round_order) FILTER (WHERE m.round IS NOT NULL) AS rounds_skipped,
           list(r.round ORDER BY r.round_order) FILTER (WHERE m.round IS NULL) AS rounds_power_not_read
    FROM (SELECT DISTINCT previous.round_order AS previous_order, round_order FROM sequenced) AS k
    JOIN stg_rounds AS r ON r.round_order > k.previous_order AND r.round_order < k.round_order
    LEFT JOIN measured_rounds AS m ON m.round = r.round
    GROUP BY ALL
),
judged AS (
    SELECT s.*, s.previous IS NOT NULL AND s.era IS NOT DISTINCT FROM s.previous.era AS comparable_with_previous
    FROM sequenced AS s
)
SELECT
    j.* EXCLUDE (previous, era_began_because),
    j.previous.round AS round_previous, j.previous.work_per_joule AS work_per_joule_previous, j.previous,
    coalesce(b.rounds_skipped, []) AS rounds_skipped, coalesce(b.rounds_power_not_read, []) AS rounds_power_not_read,
    CASE WHEN j.previous IS NULL OR j.comparable_with_previous THEN NULL ELSE j.era_began_because END
        AS not_comparable_because,
    CASE WHEN j.comparable_with_previous THEN j.work_per_joule / j.previous.work_per_joule END AS gain_from_previous,
    j.work_per_joule / j.work_per_joule_first AS gain_since_first,
    j.comparable_with_previous AND j.procurement_grade AND j.previous.procurement_grade AS pair_procurement_grade
FROM judged AS j
LEFT JOIN between_rounds AS b ON b.previous_order = j.previous.round_order AND b.round_order = j.round_order
