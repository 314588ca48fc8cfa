-- What was the field's best per accelerator, round by round, and which round set the record?
-- One row per (benchmark, scenario, result unit, segment, era, round) in which a procurement-grade
-- result of that segment ran: throughput units only (a figure per accelerator of a latency means
-- nothing), whole devices of one model (no partition, no mixed cluster).
-- round_best_*: the round's best procurement-grade result per accelerator of the segment, by the one
--   eligibility rule (int_best_eligible: each hardware's best row at each size; the system's result /
--   its accelerators), its part, size, submitter and result ID or run folder.
-- record_*: the best per accelerator any round of the era had reached by this round (the field's
--   record), and the round and part that set it; set_record: this round set it.
-- first_*: the era's first round in this segment and its best: what a record is measured from.
-- record_gain_since_first = throughput_per_accelerator_record / throughput_per_accelerator_first (above 1: the record rose).
-- label: the record from what to what, "v0.5 Goya HL-100 14,447 -> v4.1 H200 SXM 96,029, datacenter"
--   (the report's history chart draws it at the round that set the record).
-- A record lives within one era of its benchmark (int_figure_eras: 3d-unet's BraTS and KiTS19 are two)
-- and one segment (a workstation card's result is never the datacenter record): the 'x5.8 since 2019'
-- the report once drew for ResNet-50 Offline set a v4.1 H200 against a v0.5 TITAN RTX, a workstation
-- card; the datacenter record from v0.5's best datacenter part is 96,029.4 / 14,447 = 6.65x.
WITH bests AS (
    SELECT b.benchmark, b.scenario, b.units, h.segment, e.era, b.round, b.round_order,
           b.hardware AS accelerator, b.total_accelerators, b.submitter, b.result_id, b.run_path,
           b.value / b.total_accelerators AS per_accelerator
    FROM int_best_eligible AS b
    JOIN stg_hardware AS h ON h.hardware = b.hardware AND h.hardware_kind = 'accelerator'
    LEFT JOIN int_figure_eras AS e USING (round, benchmark, scenario)
    WHERE b.best_of_hardware AND b.procurement_grade AND b.higher_is_better AND b.total_accelerators > 0
      AND b.hardware = b.accelerator AND b.accelerator NOT LIKE '% + %'
),
round_bests AS (
    SELECT benchmark, scenario, units, segment, era, round, round_order,
           arg_max({'accelerator': accelerator, 'count': total_accelerators, 'submitter': submitter,
                    'result_id': result_id, 'run_path': run_path, 'value': per_accelerator}, per_accelerator) AS best
    FROM bests
    GROUP BY ALL
),
placed AS (
    SELECT r.*, o.published_on FROM round_bests AS r LEFT JOIN stg_rounds AS o USING (round)
),
running AS (
    SELECT p.*,
           max(p.best.value) OVER era AS throughput_per_accelerator_record,
           arg_max({'round': p.round, 'best': p.best}, p.best.value) OVER era AS holder,
           first_value({'round': p.round, 'best': p.best}) OVER era AS first
    FROM placed AS p
    WINDOW era AS (PARTITION BY benchmark, scenario, units, segment, era ORDER BY round_order
                   ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT
    benchmark, scenario, units AS throughput_unit, segment, era, round, published_on,
    best.accelerator AS round_best_accelerator, best.count AS round_best_accelerator_count,
    best.value AS throughput_per_accelerator, best.submitter AS round_best_submitter,
    best.result_id AS round_best_result_id, best.run_path AS round_best_run_path,
    throughput_per_accelerator_record, holder.round AS record_round, holder.best.accelerator AS record_accelerator,
    holder.best.submitter AS record_submitter, holder.best.result_id AS record_result_id,
    holder.best.run_path AS record_run_path,
    holder.round = round AS set_record,
    first.round AS first_round, first.best.accelerator AS first_accelerator,
    first.best.value AS throughput_per_accelerator_first,
    throughput_per_accelerator_record / first.best.value AS record_gain_since_first,
    format('{} {} {} -> {} {} {}, {}', first.round, first.best.accelerator,
           format('{:,}', round(first.best.value)::BIGINT), holder.round, holder.best.accelerator,
           format('{:,}', round(throughput_per_accelerator_record)::BIGINT), segment) AS label
FROM running
