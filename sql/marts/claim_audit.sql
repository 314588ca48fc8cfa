-- Does each vendor claim hold up when recomputed from the warehouse, and how far may it be trusted?
-- recomputed: the claim's multiplier recomputed by the view of its kind: generation_speedup ->
--   generation_speedups.speedup, software_gain -> software_gains.gain, scaling_efficiency ->
--   scaling_efficiency.efficiency, absolute -> the best result value of any verification (an
--   open-division or unofficial row may reproduce it, and the verdict says so). Optional claim fields
--   (scenario, total_accelerators, submitter, basis, round_from) narrow the match; an absent
--   scenario means "up to": the largest recomputed value across scenarios.
-- relative_difference = (recomputed - multiplier) / multiplier.
-- verdict (the seeds' wording), first rule that applies:
--   1. stage post_submission_unverified or vendor_self_test -> 'directional only - do not put it in a
--      procurement decision';
--   2. stage preview, or any row used is preview -> 'promising, but the platform is not shipping today';
--   3. nothing recomputed, no number claimed, or more than 5% away from the claim -> 'directional only - ...' (no verified
--      rows reproduce it);
--   4. stage mlcommons_verified and every row used verified -> 'comparable across submitters';
--   5. anything else -> 'unclassified'.
WITH candidates AS (
    SELECT c.id, g.speedup AS recomputed, g.scenario AS recomputed_scenario,
           [{'role': 'new', 'result_id': g.result_id_new, 'submitter': g.submitter_new,
             'value': g.value_new, 'verification': g.verification_new},
            {'role': 'base', 'result_id': g.result_id_base, 'submitter': g.submitter_base,
             'value': g.value_base, 'verification': g.verification_base}] AS rows_used
    FROM claims AS c
    JOIN generation_speedups AS g
      ON  c.kind = 'generation_speedup' AND g.round = c.round AND g.benchmark = c.benchmark
      AND g.accelerator_new = c.accelerator AND g.accelerator_base = c.baseline_accelerator
      AND (c.total_accelerators IS NULL OR g.total_accelerators = c.total_accelerators)
      AND (c.scenario IS NULL OR g.scenario = c.scenario)
      AND (c.submitter IS NULL OR g.submitter_new = c.submitter)
    UNION ALL
    SELECT c.id, s.gain, s.scenario,
           [{'role': 'from', 'result_id': s.result_id_from, 'submitter': s.submitter,
             'value': s.value_from, 'verification': s.verification_from},
            {'role': 'to', 'result_id': s.result_id_to, 'submitter': s.submitter,
             'value': s.value_to, 'verification': s.verification_to}]
    FROM claims AS c
    JOIN software_gains AS s
      ON  c.kind = 'software_gain' AND s.round_to = c.round AND s.benchmark = c.benchmark
      AND s.accelerator = c.accelerator
      AND (c.round_from IS NULL OR s.round_from = c.round_from)
      AND (c.submitter IS NULL OR s.submitter = c.submitter)
      AND (c.basis IS NULL OR s.basis = c.basis)
      AND (c.scenario IS NULL OR s.scenario = c.scenario)
      AND (c.total_accelerators IS NULL OR s.basis = 'per_accelerator'
           OR s.total_accelerators = c.total_accelerators)
    UNION ALL
    SELECT c.id, e.efficiency, e.scenario,
           [{'role': 'small', 'result_id': e.result_id_small, 'submitter': e.submitter,
             'value': e.value_small, 'verification': e.verification_small},
            {'role': 'large', 'result_id': e.result_id_large, 'submitter': e.submitter,
             'value': e.value_large, 'verification': e.verification_large}]
    FROM claims AS c
    JOIN scaling_efficiency AS e
      ON  c.kind = 'scaling_efficiency' AND e.round = c.round AND e.benchmark = c.benchmark
      AND (c.accelerator IS NULL OR e.accelerator = c.accelerator)
      AND e.accelerators_small = c.baseline_total_accelerators
      AND e.accelerators_large = c.total_accelerators
      AND (c.scenario IS NULL OR e.scenario = c.scenario)
      AND (c.submitter IS NULL OR e.submitter = c.submitter)
    UNION ALL
    SELECT c.id, CASE WHEN p.higher_is_better THEN p.value ELSE -p.value END, p.scenario,
           [{'role': 'result', 'result_id': p.result_id, 'submitter': p.submitter,
             'value': p.value, 'verification': p.verification}]
    FROM claims AS c
    JOIN stg_performance AS p
      ON  c.kind = 'absolute' AND p.round = c.round AND p.benchmark = c.benchmark
      AND (c.accelerator IS NULL OR p.accelerator = c.accelerator)
      AND (c.total_accelerators IS NULL OR p.total_accelerators = c.total_accelerators)
      AND (c.scenario IS NULL OR p.scenario = c.scenario)
      AND (c.submitter IS NULL OR p.submitter = c.submitter)
),
best AS (
    SELECT id, abs(recomputed) AS recomputed, recomputed_scenario, rows_used
    FROM candidates
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY recomputed DESC,
                                                        rows_used[1].result_id) = 1
),
audited AS (
    SELECT
        c.*,
        b.recomputed,
        b.recomputed_scenario,
        coalesce(b.rows_used, []) AS rows_used,
        (b.recomputed - c.multiplier) / c.multiplier AS relative_difference,
        list_contains(list_transform(coalesce(b.rows_used, []), lambda r: r.verification), 'preview') AS uses_preview,
        b.rows_used IS NOT NULL
            AND list_bool_and(list_transform(b.rows_used, lambda r: r.verification = 'verified')) AS all_verified
    FROM claims AS c
    LEFT JOIN best AS b USING (id)
)
SELECT
    id, vendor, kind, stage, round, round_from, model, benchmark, scenario, recomputed_scenario,
    accelerator, baseline_accelerator, total_accelerators, baseline_total_accelerators, submitter,
    multiplier, recomputed, relative_difference, rows_used,
    CASE
        WHEN stage IN ('post_submission_unverified', 'vendor_self_test')
            THEN 'directional only - do not put it in a procurement decision'
        WHEN stage = 'preview' OR uses_preview
            THEN 'promising, but the platform is not shipping today'
        WHEN recomputed IS NULL OR multiplier IS NULL OR abs(relative_difference) > 0.05
            THEN 'directional only - do not put it in a procurement decision'
        WHEN stage = 'mlcommons_verified' AND all_verified
            THEN 'comparable across submitters'
        ELSE 'unclassified'
    END AS verdict,
    verdict = 'comparable across submitters' AS procurement_grade,
    statement, source, published_on, cited_result_ids
FROM audited
