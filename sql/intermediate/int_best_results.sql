-- Which result is the best of each hardware configuration, by each rule the comparison marts use?
-- Rows: among verified and preview (closed-division) performance rows with canonical hardware and a
-- known count of it (stg_results: the accelerator and total accelerators, or for a CPU-only system the
-- processor and total processors) that compare as that hardware (stg_results.not_comparable_because
-- null: not run without its accelerator, not 0 accelerators counted, not inferred), the best row of each (round, submitter, hardware, hardware count,
-- benchmark, scenario, units, verification): at most one verified and one preview row per
-- submitter's configuration. accelerator and total_accelerators are null for a CPU-only system.
-- "Best" follows the units (checked, stg_results): highest throughput, lowest latency
-- (rank_value = -value for higher-is-better units, else value; lower ranks first); ties go to the
-- lowest result id, then entry id, so every choice is stable.
-- Flags, each computed once here for the marts that read this table:
--   best_of_submitter: the best verified-or-preview row of its (round, submitter, hardware, hardware
--     count, benchmark, scenario, units): what scaling_efficiency, generation_speedups and the claim
--     audit compare;
--   best_of_hardware: among those, the best of its (round, hardware, hardware count, benchmark,
--     scenario, units), whoever submitted it (generation_speedups);
--   best_per_accelerator_of_submitter: the verified row with the highest value_per_accelerator of
--     its (round, submitter, accelerator, benchmark, scenario, units) at any scale; ties to the
--     lowest result id (software_gains, basis per_accelerator).
-- Every verified row here is the best verified row of its submitter's configuration (software_gains,
-- basis same_scale).
-- The hardware's attributes (segment, line...) are not carried here (stg_hardware has them): the
-- window sorts move every column of every row, and these would cost a third of the build.
-- stack (the serving stack family, stg_results), platform, processor (the host processor as published)
-- and notes_hash (a hash of the published notes) let a comparison say whether both sides ran the same
-- stack on the same system and host with the same notes.
-- run_path: the row's run folder (stg_results), what names a row rebuilt from a tree to a reader.
-- source_id, record_no: the row's key in stg_results (every row has one; result_id is null for a row
-- rebuilt from a submission tree): what a pair carries of each side, so int_result_eligibility grades
-- that side and int_pair_findings blames it. entry_id: the system entry within its source (the final
-- report's unique id, which result_id numbers; a tree row has it too).
-- has_finding: the row has an anomaly its own evidence shows (int_row_findings, evidence 'own'): it
-- still competes for "best", so a wrong number cannot hide behind a lesser one, and every comparison
-- it takes part in is not procurement grade. A finding that rests on other results (out_of_range) is
-- not one: it questions the figure, it does not disprove it.
WITH comparable AS (
    SELECT
        round, round_order, submitter, hardware, hardware_kind, hardware_count, accelerator, cpu,
        total_accelerators, benchmark, scenario, units, higher_is_better, value, value_per_accelerator,
        result_id, entry_id, source_id, record_no, run_path, verification, software, stack, platform, processor,
        hash(notes) AS notes_hash, f.source_id IS NOT NULL AS has_finding,
        CASE WHEN higher_is_better THEN -value ELSE value END AS rank_value
    FROM stg_results AS r
    LEFT JOIN (SELECT DISTINCT source_id, record_no FROM int_row_findings WHERE evidence = 'own') AS f
        USING (source_id, record_no)
    WHERE metric = 'performance' AND verification IN ('verified', 'preview')
      AND hardware IS NOT NULL AND hardware_count IS NOT NULL AND not_comparable_because IS NULL
),
ranked AS (
    -- One sort per partition: a row is the best of its kind when it comes first, in the order of
    -- the rule, among the rows of that kind before it (the running counts).
    SELECT
        *,
        row_number() OVER configuration = 1 AS best_of_submitter,
        verification = 'verified' AND count(*) FILTER (WHERE verification = 'verified') OVER configuration = 1
            AS first_verified,
        verification = 'preview' AND count(*) FILTER (WHERE verification = 'preview') OVER configuration = 1
            AS first_preview,
        row_number() OVER hardware = 1 AS best_of_hardware,
        verification = 'verified' AND value_per_accelerator IS NOT NULL AND row_number() OVER (
            PARTITION BY verification = 'verified' AND value_per_accelerator IS NOT NULL,
                         round, submitter, accelerator, benchmark, scenario, units
            ORDER BY value_per_accelerator DESC, result_id, entry_id) = 1 AS best_per_accelerator_of_submitter
    FROM comparable
    WINDOW configuration AS (
               PARTITION BY round, submitter, hardware, hardware_count, benchmark, scenario, units
               ORDER BY rank_value, result_id, entry_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW),
           hardware AS (
               PARTITION BY round, hardware, hardware_count, benchmark, scenario, units
               ORDER BY rank_value, result_id, entry_id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)
)
SELECT * EXCLUDE (first_verified, first_preview)
FROM ranked
WHERE first_verified OR first_preview
