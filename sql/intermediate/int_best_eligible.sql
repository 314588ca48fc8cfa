-- Which row is "the best" of each hardware configuration, by the one eligibility rule?
-- The best-of answers read this, so that the row the leaderboard ranks first among a configuration's
-- rows is the best in every answer: accelerator_history, the hardware_best basis of software gains
-- (int_hardware_gains) and every figure of the claim audit (docs/definitions.md section 1c).
-- Rows: the verified and preview performance rows that compare as their hardware (int_best_results'
-- set: canonical hardware, a known count, stg_results.not_comparable_because null), each with its
-- standing by int_result_eligibility, joined on its key (source_id, record_no).
-- "Best" follows the units (highest throughput, lowest latency) among the rows that may be set against
-- another (usable: comparable and no finding, its own or a pair's that blames it); only when none of a
-- configuration's rows is usable is the best of the others taken, and then it is not procurement grade.
-- Ties go to the lowest result id, then entry id, then key. int_best_results differs on purpose: there
-- a row with a finding still competes, so a wrong number cannot hide behind a lesser one when the
-- anomaly rules pair results; here, after those rules, it gives way to the best row they clear.
-- Flags:
--   best_of_submitter: the best row of its (round, submitter, hardware, hardware count, benchmark,
--     scenario, units, verification): at most one verified and one preview row per submitter's
--     configuration (the claim audit's new sides and same-submitter figures);
--   best_of_hardware: the best verified row of its (round, hardware, hardware count, benchmark,
--     scenario, units), whoever submitted it (accelerator_history, hardware_best, claim baselines).
-- usable, procurement_grade, findings: int_result_eligibility's, for the row; run_path: its run folder.
-- Cost (bench/views_profile.py's million rows, a shared machine): about 5 CPU seconds, as
-- int_best_results; the hardware_best pairs it feeds moved out of int_software_gains (4.1 -> 2.3 CPU s)
-- into int_hardware_gains (1.4): every model together about 19.5 -> 23 CPU s.
WITH graded AS (
    SELECT
        r.round, r.round_order, r.submitter, r.hardware, r.hardware_kind, r.hardware_count, r.accelerator, r.cpu,
        r.total_accelerators, r.benchmark, r.scenario, r.units, r.higher_is_better, r.value,
        r.value_per_accelerator, r.result_id, r.entry_id, r.source_id, r.record_no, r.run_path, r.verification, r.software,
        r.stack, r.platform, r.processor, hash(r.notes) AS notes_hash,
        e.usable, e.procurement_grade, e.findings,
        CASE WHEN r.higher_is_better THEN -r.value ELSE r.value END AS rank_value
    FROM stg_results AS r
    JOIN int_result_eligibility AS e USING (source_id, record_no)
    WHERE r.metric = 'performance' AND r.verification IN ('verified', 'preview')
      AND r.hardware IS NOT NULL AND r.hardware_count IS NOT NULL AND e.comparable
),
-- Each best is a key picked per group by arg_min over the row's order (a hash aggregate: three
-- windows sorting a million rows each took 3.4 s of bench/views_profile.py's build, this about a third);
-- the order is the windows' was: usable first, then the value, result id (nulls last), entry, key.
ordered AS (
    SELECT *, {'source_id': source_id, 'record_no': record_no} AS row_key,
           {'u': NOT usable, 'v': rank_value, 'n': result_id IS NULL, 'id': coalesce(result_id, ''),
            'e': entry_id, 's': source_id, 'r': record_no} AS by_value
    FROM graded
),
of_submitter AS (
    SELECT arg_min(row_key, by_value) AS row_key FROM ordered
    GROUP BY round, submitter, hardware, hardware_count, benchmark, scenario, units, verification
),
of_hardware AS (
    SELECT arg_min(row_key, by_value) AS row_key FROM ordered WHERE verification = 'verified'
    GROUP BY round, hardware, hardware_count, benchmark, scenario, units
)
SELECT o.* EXCLUDE (row_key, by_value, rank_value),
       s.row_key IS NOT NULL AS best_of_submitter, h.row_key IS NOT NULL AS best_of_hardware
FROM ordered AS o
LEFT JOIN of_submitter AS s ON s.row_key = o.row_key
LEFT JOIN of_hardware AS h ON h.row_key = o.row_key
WHERE s.row_key IS NOT NULL OR h.row_key IS NOT NULL
