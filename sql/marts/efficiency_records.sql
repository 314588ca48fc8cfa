-- What was the field's most work per joule, round by round, and which round set the record?
-- One row per (benchmark, scenario, work unit, segment, power setting, era, round) in which a
-- procurement-grade result with measured power ran: basis 'measured system power' only, power-optimized
-- (MaxQ) and performance (MaxP) entries apart, each its own record (both shown, never one across them).
-- round_best_*: the round's best procurement-grade result per joule of the segment (int_energy_efficiency:
--   each hardware's best row at each size), its part, size, submitter, result ID or run folder: systems of
--   whole accelerators of one model (no partition, no mixed cluster, no CPU-only system: as field_records).
-- record_*: the most work per joule any round of the era had reached by this round (the field's
--   record), and the round, part and run that set it; set_record: this round set it.
-- first_*: the era's first round with a measured result of this segment and setting, and its best: what
--   the record is measured from. record_gain_since_first = work_per_joule_record / work_per_joule_first
--   (above 1: the record rose).
-- label: the record from what to what, 'v1.1 A100 PCIe 40GB 112.0 -> v2.1 Cloud AI 100 Pro 217.0
--   samples/J, datacenter MaxP' (the report's efficiency chart draws it at the round that set it).
-- A record lives within one era of its benchmark (int_figure_eras) and one segment (a workstation card
-- never holds the datacenter record), as field_records' (docs/definitions.md sections 14 and 16).
WITH bests AS (
    SELECT b.benchmark, b.scenario, b.work_unit, b.segment, b.power_setting, b.era, b.round, b.round_order,
           b.hardware, b.total_accelerators, b.submitter, b.result_id, b.run_path, b.work_per_joule
    FROM int_energy_efficiency AS b
    WHERE b.best_of_hardware AND b.procurement_grade AND b.segment IS NOT NULL
      AND b.hardware_kind = 'accelerator' AND b.hardware = b.accelerator AND b.accelerator NOT LIKE '% + %'
),
round_bests AS (
    SELECT benchmark, scenario, work_unit, segment, power_setting, era, round, round_order,
           arg_max({'hardware': hardware, 'count': total_accelerators, 'submitter': submitter,
                    'result_id': result_id, 'run_path': run_path, 'value': work_per_joule}, work_per_joule) AS best
    FROM bests
    GROUP BY ALL
),
running AS (
    SELECT r.*, o.published_on,
           max(r.best.value) OVER era AS work_per_joule_record,
           arg_max({'round': r.round, 'best': r.best}, r.best.value) OVER era AS holder,
           first_value({'round': r.round, 'best': r.best}) OVER era AS first
    FROM round_bests AS r
    LEFT JOIN stg_rounds AS o ON o.round = r.round
    WINDOW era AS (PARTITION BY r.benchmark, r.scenario, r.work_unit, r.segment, r.power_setting, r.era
                   ORDER BY r.round_order ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT
    benchmark, scenario, work_unit, segment, power_setting, era, round, published_on,
    best.hardware AS round_best_accelerator, best.count AS round_best_accelerator_count,
    best.value AS work_per_joule_round_best, best.submitter AS round_best_submitter,
    best.result_id AS round_best_result_id, best.run_path AS round_best_run_path,
    work_per_joule_record, holder.round AS record_round, holder.best.hardware AS record_accelerator,
    holder.best.count AS record_accelerator_count, holder.best.submitter AS record_submitter,
    holder.best.result_id AS record_result_id, holder.best.run_path AS record_run_path,
    holder.round = round AS set_record,
    first.round AS first_round, first.best.hardware AS first_accelerator, first.best.value AS work_per_joule_first,
    work_per_joule_record / first.best.value AS record_gain_since_first,
    format('{} {} {} -> {} {} {} {}/J, {} {}', first.round, first.best.hardware, printf('%.4g', first.best.value),
           holder.round, holder.best.hardware, printf('%.4g', work_per_joule_record), work_unit, segment,
           power_setting) AS label
FROM running
