-- How much did each accelerator gain, round by round, since the first round it ran, on the same
-- benchmark and scenario at the same size?
-- One row per (accelerator, accelerator count, benchmark, scenario, round) where it ran: the best
-- verified result of that hardware in the round, whoever submitted it, by the one eligibility rule
-- (int_best_eligible best_of_hardware: the row the leaderboard ranks first among that hardware's rows;
-- only when no row of it is procurement grade, the best of the others, and then not procurement
-- grade), from a published table or, for a round MLCommons published no table of, rebuilt from the
-- submission tree (source_kind; run_path and source_id trace the figure to its file).
-- accelerator: the part as sold (its variant), or the partition of a partitioned device ('A100 SXM
--   80GB (MIG 1g.10gb)'); accelerator_count: the devices the system counts; partition_instances: for a
--   partition, the instances the run used (NVIDIA's x8 DGX ran 56 1g.10gb instances, HPE's 8-GPU
--   Apollo one), null for whole devices. A series is one (accelerator, count, instances): one instance
--   on an 8-GPU system is never set beside 56 (the 0.019x "gain" of bert-99 Server, v2.0 -> v2.1).
-- round_previous, result_previous: the previous round where it ran; rounds_skipped: the loaded rounds
--   between in which it did not run; rounds_not_loaded: the rounds between the warehouse knows of and
--   has not loaded (it may have run there).
-- era, measures (int_figure_eras): what the result measured. comparable_with_previous: the same era and
--   unit as the previous round's; else not_comparable_because says what changed, and no gain is given.
-- gain_from_previous: result / result_previous for throughput, result_previous / result for latency
--   (above 1 is faster); gain_since_first: the same against round_first, the first round of the era in
--   which it ran.
-- has_finding: the figure has an anomaly finding, its own or a pair's that blames it
--   (int_result_eligibility.findings, by the row's key source_id, record_no: a row rebuilt from a
--   submission tree has no result_id). procurement_grade: comparable with the previous round's figure
--   and both figures procurement grade by the one eligibility rule (int_result_eligibility
--   .procurement_grade, docs/definitions.md section 1c).
WITH best AS (
    SELECT b.round, b.round_order, b.hardware AS accelerator, b.total_accelerators AS accelerator_count,
           CASE WHEN b.hardware <> b.accelerator THEN b.hardware_count END AS partition_instances, b.benchmark, b.scenario, b.units, b.higher_is_better, b.value, b.submitter, b.platform, b.software,
           b.stack, b.result_id, len(b.findings) > 0 AS has_finding, b.procurement_grade AS eligible,
           b.source_id AS row_source_id, b.record_no AS row_record_no
    FROM int_best_eligible AS b
    WHERE b.best_of_hardware AND b.hardware_kind = 'accelerator'
),
runs AS (
    -- the run folder of each verified figure (of a submitter's rows with one figure, the first by path)
    SELECT b.row_source_id, b.row_record_no,
           min(s.run_path) AS run_path, arg_min(s.source_id, s.run_path) AS source_id, arg_min(s.system, s.run_path) AS system
    FROM best AS b
    JOIN stg_results AS s USING (round, submitter, platform, benchmark, scenario, units, value)
    WHERE s.metric = 'performance' AND s.verification = 'verified'
    GROUP BY ALL
),
placed AS (
    SELECT b.*, r.run_path, r.source_id, r.system, e.era, e.measures, e.era_began_because,
           CASE WHEN r.source_id LIKE 'rebuilt/%' THEN 'submission tree' ELSE 'published table' END AS source_kind
    FROM best AS b
    LEFT JOIN runs AS r USING (row_source_id, row_record_no)
    LEFT JOIN int_figure_eras AS e USING (round, benchmark, scenario)
),
firsts AS (
    -- the first round of each era in which the hardware ran, and its figure
    SELECT accelerator, accelerator_count, partition_instances, benchmark, scenario, units, era,
           arg_min(round, round_order) AS round_first, arg_min(value, round_order) AS value_first
    FROM placed
    GROUP BY ALL
),
sequenced AS (
    SELECT p.*,
           lag(p.round) OVER w AS round_previous, lag(p.round_order) OVER w AS round_order_previous,
           lag(p.value) OVER w AS value_previous, lag(p.era) OVER w AS era_previous,
           lag(p.units) OVER w AS units_previous, lag(p.eligible) OVER w AS eligible_previous,
           f.round_first, f.value_first
    FROM placed AS p
    JOIN firsts AS f ON f.accelerator = p.accelerator AND f.accelerator_count = p.accelerator_count
         AND f.partition_instances IS NOT DISTINCT FROM p.partition_instances AND f.benchmark = p.benchmark AND f.scenario = p.scenario AND f.units IS NOT DISTINCT FROM p.units
         AND f.era IS NOT DISTINCT FROM p.era
    WINDOW w AS (PARTITION BY p.accelerator, p.accelerator_count, p.partition_instances, p.benchmark, p.scenario
                 ORDER BY p.round_order)
),
between_rounds AS (
    -- the rounds between two in which the hardware ran, once per pair of rounds (a few dozen pairs)
    SELECT k.round_order_previous, k.round_order,
           list(r.round ORDER BY r.round_order) FILTER (WHERE r.loaded) AS rounds_skipped,
           list(r.round ORDER BY r.round_order) FILTER (WHERE NOT r.loaded) AS rounds_not_loaded
    FROM (SELECT DISTINCT round_order_previous, round_order FROM sequenced) AS k
    JOIN stg_rounds AS r ON r.round_order > k.round_order_previous AND r.round_order < k.round_order
    GROUP BY ALL
),
judged AS (
    SELECT s.*,
           s.round_previous IS NOT NULL AND s.era IS NOT DISTINCT FROM s.era_previous
               AND s.units = s.units_previous AS comparable_with_previous
    FROM sequenced AS s
)
SELECT
    j.accelerator, j.accelerator_count, j.partition_instances, j.benchmark, j.scenario, j.units AS result_unit, j.round,
    j.value AS result, j.submitter, j.system, j.platform, j.software, j.stack, j.result_id, j.source_kind,
    j.source_id, j.run_path, j.era, j.measures,
    j.round_previous, j.value_previous AS result_previous,
    coalesce(b.rounds_skipped, []) AS rounds_skipped, coalesce(b.rounds_not_loaded, []) AS rounds_not_loaded,
    j.comparable_with_previous,
    CASE WHEN j.round_previous IS NULL OR j.comparable_with_previous THEN NULL
         WHEN j.units IS DISTINCT FROM j.units_previous
             THEN format('the unit changed from {} to {}', j.units_previous, j.units)
         ELSE j.era_began_because END AS not_comparable_because,
    CASE WHEN j.comparable_with_previous THEN
        CASE WHEN j.higher_is_better THEN j.value / j.value_previous ELSE j.value_previous / j.value END
    END AS gain_from_previous,
    j.round_first, j.value_first AS result_first,
    CASE WHEN j.higher_is_better THEN j.value / j.value_first ELSE j.value_first / j.value END AS gain_since_first,
    j.has_finding,
    j.comparable_with_previous AND j.eligible AND j.eligible_previous AS procurement_grade
FROM judged AS j
LEFT JOIN between_rounds AS b USING (round_order_previous, round_order)
