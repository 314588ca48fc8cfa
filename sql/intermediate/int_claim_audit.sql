-- Does each vendor claim hold up when recomputed from the warehouse, as cited and against the best
-- baseline you could buy, and how far may it be trusted?
-- recomputed_as_cited: the claim recomputed from exactly the entries it cites (int_claim_as_cited:
--   the rules, per kind, and citation_problem when the cited entries do not match the claim).
-- recomputed_best: each best verified-or-preview row matching the claim (int_best_eligible.best_of_submitter:
--   rows that compare as their hardware, the best usable one by the one eligibility rule), whichever
--   entries the claim cites, against the best VERIFIED result of the baseline hardware, whoever
--   submitted it (int_best_eligible.best_of_hardware: the row the leaderboard ranks first), in the new side's
--   scenario and units:
--     generation_speedup: baseline_accelerator at the new side's scale, same round;
--     scaling_efficiency, scale_speedup: the new side's accelerator at baseline_total_accelerators,
--       same round;
--     software_gain: every row of the claim's submitter and accelerator in the claim's round (at the
--       claim's total_accelerators when it names one, cited or not) against the same accelerator in
--       round_from (absent: the latest earlier round with such a result), on two bases: same_scale, the same accelerator count (the only figure that isolates
--       software), and per_accelerator at any scale by value per accelerator (scale_changed when the
--       two sizes differ). recomputed_best is the largest same-scale figure when one exists, else the
--       largest per-accelerator figure; recomputed_cross_scale is the figure across two sizes: the
--       claim's own (as cited) when its entries differ in size, else the largest such figure;
--     absolute: the best value of any verification (an open-division or unofficial row may reproduce
--       it, and the verdict says so): highest throughput, lowest latency.
--   Figures as in int_claim_as_cited: throughput new / base, latency base / new (times better);
--   scaling_efficiency (new / base) / (accelerators_new / accelerators_base); software_gain per
--   accelerator (new / accelerators_new) / (base value per accelerator). An absent scenario means
--   "up to": the largest figure across scenarios; optional claim fields (scenario, total_accelerators,
--   submitter, basis, round_from) narrow the new side.
-- recomputed: the figure the verdict uses: recomputed_as_cited when the claim cites entries, else
--   recomputed_best; for a software_gain whose cited entries differ in size, the same-scale figure
--   when one exists (the claim's own cross-scale figure stays beside it, recomputed_cross_scale).
--   rows_used are the rows behind it (roles 'new' and 'base', absolute 'new' only), each with its key
--   in stg_results (source_id, record_no: a row rebuilt from a submission tree has no result_id) and
--   label, its result_id or for a tree row its submitter and platform ("NVIDIA T4x8_TRT"); ties
--   between equal figures go to the smallest result_id, then the smallest key.
--   recomputed_scenario is its scenario. scale_changed: that figure compares systems of two sizes.
-- recomputed_equal_scale (rows_equal_scale): the largest figure between two systems of one size, whenever
--   one exists: a software gain's same-scale figure, a generation speedup's (taken at the new side's
--   size); null for the other kinds.
-- recomputed_same_submitter (rows_same_submitter): wherever the claim names a submitter, the figure on
--   its own rows on both sides, shown beside the others (the grade does not rest on it): a software
--   gain's best verified result over its own best verified result of round_from (absent: the latest
--   earlier round) at one size, else, when it ran no size in both rounds, per accelerator across sizes
--   (said "across sizes ... not software alone"); a generation speedup's, scaling efficiency's or scale
--   speedup's new side over the submitter's own verified baseline (the baseline accelerator at the
--   same size; the same accelerator at baseline_total_accelerators); an absolute claim's best row
--   (already the submitter's). The largest, a pair at one size first, then procurement-grade pairs.
-- multiplier: the number a relative claim states; null for an absolute claim, whose number is
--   result_claimed, in result_unit: the published unit of the rows it is set against (cited, else
--   best; null when no row matches it). Its figures (recomputed, figure_supported) are in that unit.
-- relative_difference = (recomputed - multiplier) / multiplier; null when nothing recomputes the claim's
--   own figure: no rows, no number, or a stage whose figure no published result can hold
--   (post_submission_unverified, vendor_self_test).
-- The grade: how the claimed number stands against every figure the data supports at the claim's own
--   conditions (best against best, equal size), from the data alone: the same claim gets the same
--   grade with or without cited ids (the citation is checked apart: citation_problem,
--   stage_contradiction and the verdict). figure_supported: the highest of them (for a
--   latency claimed as an absolute, the lowest latency: grades compare "more" claimed with "more"
--   supported); grade, with a 5% tolerance (the rounding of blog multipliers, as the verdict's rule 3):
--     'overstated': the claim is more than 5% above every supported figure (overstated_by: by how much,
--        0.377 = 37.7%); 'understated': more than 5% below every one; 'holds': otherwise;
--     'unsupported': nothing recomputes it (no rows, or a post-deadline or self-tested stage);
--     null: no number was claimed. grade_reason says it with every figure; when rows of the claim's
--     round, benchmark and accelerator exist but take part in no comparison (int_result_eligibility:
--     an inference, a run without its accelerator), it names them and why, never "no rows".
-- stage_contradiction: a stated stage the rows contradict, cited or not: mlcommons_verified citing a
--   preview, open or research entry (mislabelled), or preview citing verified entries only; else, judged
--   on the figures that support the claim (every figure the audit computes for it: each new side
--   against its baseline, the pair figures, an absolute claim's every matching row, as cited; those
--   within 5% of its number when any is, else all of them): mlcommons_verified when none of them rests
--   on verified rows alone (the rows not verified named, three at most), preview when every one does;
--   null otherwise.
-- weak_baseline: the cited baseline is more than 2% worse than the best verified baseline in the
--   same scenario (throughput cited / best < 0.98; latency best / cited < 0.98; per accelerator for a
--   per_accelerator software gain); null when no cited baseline stands or no verified baseline exists.
--   best_baseline_result_id / best_baseline_submitter name the best verified baseline used.
-- verdict (the seeds' wording), first rule that applies:
--   0. the claim cites entries and they do not match it (citation_problem) -> 'unclassified',
--      whatever the stage; never a silent fallback to other rows;
--   1. stage post_submission_unverified or vendor_self_test -> 'directional only - do not put it in a
--      procurement decision';
--   2. stage preview, or any row used is preview -> 'promising, but the platform is not shipping today';
--   2b. a software_gain whose figure compares systems of two sizes (no same-scale figure exists), or
--      a row used with an anomaly finding its own evidence shows (int_result_eligibility
--      .disqualifying_findings, joined on the row's key; findings_used) -> 'directional only - ...';
--      a finding that rests on other results questions a row, it does not disprove it (1c);
--   3. nothing recomputed, no number claimed, or more than 5% away from the claim -> 'directional only - ...'
--      (no verified rows reproduce it);
--   4. stage mlcommons_verified and every row used verified -> 'comparable across submitters';
--   5. anything else -> 'unclassified'.
-- verdict_reason says which rule applied and why.
WITH as_cited AS (
    SELECT * FROM int_claim_as_cited
),
standing AS (
    SELECT * FROM as_cited WHERE citation_problem IS NULL
),
new_sides AS (
    -- from the data alone, cited or not: the same claim gets the same figure with or without ids
    SELECT c.id, p.result_id, p.source_id, p.record_no, p.platform, p.submitter, p.round, p.accelerator,
           p.total_accelerators, p.scenario, p.value, p.units, p.verification, a.cited_base_row AS cited_base
    FROM stg_claims AS c
    LEFT JOIN standing AS a ON a.claim_id = c.id
    JOIN int_best_eligible AS p
      ON  p.best_of_submitter AND p.round = c.round AND p.benchmark = c.benchmark
      AND (c.scenario IS NULL OR p.scenario = c.scenario)
      AND p.higher_is_better = (c.direction = 'throughput')
      AND (c.accelerator IS NULL OR p.accelerator = c.accelerator)
      AND (c.submitter IS NULL OR p.submitter = c.submitter)
      AND CASE WHEN c.kind IN ('scaling_efficiency', 'scale_speedup')
                   THEN p.total_accelerators = c.total_accelerators
               WHEN c.kind = 'software_gain' AND c.basis = 'per_accelerator' THEN true
               ELSE c.total_accelerators IS NULL OR p.total_accelerators = c.total_accelerators END
    WHERE c.kind <> 'absolute'
),
same_round_baselines AS (
    SELECT s.*, 'same_scale' AS basis, b.result_id AS b_result_id, b.source_id AS b_source_id,
           b.record_no AS b_record_no, b.platform AS b_platform, b.submitter AS b_submitter,
           b.round AS b_round, b.accelerator AS b_accelerator, b.total_accelerators AS b_total,
           b.value AS b_value, b.verification AS b_verification, b.value AS b_measure
    FROM new_sides AS s
    JOIN stg_claims AS c ON c.id = s.id
    JOIN int_best_eligible AS b
      ON  b.best_of_hardware AND b.round = s.round AND b.benchmark = c.benchmark AND b.scenario = s.scenario
      AND b.units = s.units
      AND b.accelerator = CASE WHEN c.kind = 'generation_speedup' THEN c.baseline_accelerator
                               ELSE s.accelerator END
      AND b.total_accelerators = CASE WHEN c.kind = 'generation_speedup' THEN s.total_accelerators
                                      ELSE c.baseline_total_accelerators END
    WHERE c.kind <> 'software_gain'
),
software_sides AS (
    -- every new-side row of a software gain: the claim's submitter and accelerator in its round, at
    -- every scale (the claim's total_accelerators when named), cited or not
    SELECT c.id, p.result_id, p.source_id, p.record_no, p.platform, p.submitter, p.round, p.accelerator,
           p.total_accelerators, p.scenario, p.value, p.units, p.verification, a.cited_base_row AS cited_base
    FROM stg_claims AS c
    LEFT JOIN standing AS a ON a.claim_id = c.id
    JOIN int_best_eligible AS p
      ON  p.best_of_submitter AND p.round = c.round AND p.benchmark = c.benchmark
      AND (c.scenario IS NULL OR p.scenario = c.scenario)
      AND p.higher_is_better = (c.direction = 'throughput')
      AND (c.accelerator IS NULL OR p.accelerator = c.accelerator)
      AND (c.submitter IS NULL OR p.submitter = c.submitter)
      AND (c.total_accelerators IS NULL OR p.total_accelerators = c.total_accelerators)
    WHERE c.kind = 'software_gain'
),
earlier_round_baselines AS (
    SELECT s.*, k.basis, b.result_id AS b_result_id, b.source_id AS b_source_id,
           b.record_no AS b_record_no, b.platform AS b_platform, b.submitter AS b_submitter,
           b.round AS b_round, b.accelerator AS b_accelerator, b.total_accelerators AS b_total,
           b.value AS b_value, b.verification AS b_verification,
           CASE k.basis WHEN 'same_scale' THEN b.value ELSE b.value_per_accelerator END AS b_measure
    FROM software_sides AS s
    JOIN stg_claims AS c ON c.id = s.id
    CROSS JOIN (VALUES ('same_scale'), ('per_accelerator')) AS k(basis)
    JOIN int_best_eligible AS b
      ON  b.best_of_hardware AND b.benchmark = c.benchmark AND b.scenario = s.scenario AND b.units = s.units
      AND b.accelerator = s.accelerator
      AND b.round_order < round_order(s.round)
      AND b.round = coalesce(c.round_from, b.round)
      AND CASE k.basis WHEN 'same_scale' THEN b.total_accelerators = s.total_accelerators
                       ELSE b.value_per_accelerator IS NOT NULL END
    QUALIFY row_number() OVER (PARTITION BY s.id, s.result_id, s.scenario, k.basis
                               ORDER BY b.round_order DESC, NOT b.procurement_grade, b_measure DESC, b.result_id, b.source_id, b.record_no) = 1
),
best_figures AS (
    SELECT x.*,
        CASE
            WHEN c.kind = 'scaling_efficiency' THEN (x.value / x.b_value) / (x.total_accelerators::DOUBLE / x.b_total)
            WHEN x.basis = 'per_accelerator' THEN (x.value / x.total_accelerators) / x.b_measure
            WHEN c.direction = 'throughput' THEN x.value / x.b_measure
            ELSE x.b_measure / x.value
        END AS figure,
        CASE
            WHEN x.cited_base IS NULL THEN NULL
            WHEN c.direction = 'throughput'
                THEN CASE x.basis WHEN 'per_accelerator' THEN x.cited_base.result / x.cited_base.accelerator_count
                                  ELSE x.cited_base.result END / x.b_measure < 0.98
            ELSE x.b_measure / x.cited_base.result < 0.98
        END AS weak_baseline,
        c.kind = 'software_gain' AND x.total_accelerators <> x.b_total AS scale_changed
    FROM (SELECT * FROM same_round_baselines UNION ALL BY NAME SELECT * FROM earlier_round_baselines) AS x
    JOIN stg_claims AS c ON c.id = x.id
),
figure_rows AS (
    SELECT *,
           [{'role': 'new', 'result_id': result_id, 'submitter': submitter, 'round': round,
             'accelerator': accelerator, 'accelerator_count': total_accelerators, 'scenario': scenario,
             'result': value, 'result_unit': units, 'verification': verification,
             'label': coalesce(result_id, submitter || ' ' || platform), 'source_id': source_id,
             'record_no': record_no},
            {'role': 'base', 'result_id': b_result_id, 'submitter': b_submitter, 'round': b_round,
             'accelerator': b_accelerator, 'accelerator_count': b_total, 'scenario': scenario,
             'result': b_value, 'result_unit': units, 'verification': b_verification,
             'label': coalesce(b_result_id, b_submitter || ' ' || b_platform), 'source_id': b_source_id,
             'record_no': b_record_no}] AS figure_rows
    FROM best_figures
),
row_pairs AS (
    -- the two rows of a claim's other figures, by key: a software gain's hardware best against best at
    -- one size (int_hardware_gains), and wherever the claim names a submitter its own rows on both
    -- sides (same_submitter): a software gain's best against its own earlier best at one size, else per
    -- accelerator across sizes (scale_changed); another kind's new side against the submitter's own
    -- baseline, as best_figures pairs the best baseline
    SELECT c.id, 'hardware_best' AS figure_kind, g.gain AS figure, g.procurement_grade AS usable,
           false AS scale_changed, g.source_id_to AS n_source_id, g.record_no_to AS n_record_no,
           g.source_id_from AS b_source_id, g.record_no_from AS b_record_no
    FROM stg_claims AS c
    JOIN int_hardware_gains AS g
      ON  c.kind = 'software_gain' AND g.hardware_kind = 'accelerator' AND g.round_to = c.round
      AND g.round_from = coalesce(c.round_from, g.round_from) AND g.benchmark = c.benchmark
      AND (c.accelerator IS NULL OR g.accelerator = c.accelerator)
      AND (c.scenario IS NULL OR g.scenario = c.scenario)
      AND (c.total_accelerators IS NULL OR g.total_accelerators = c.total_accelerators)
    UNION ALL
    SELECT c.id, 'same_submitter',
           CASE WHEN b.hardware_count <> n.hardware_count THEN n.value_per_accelerator / b.value_per_accelerator
                WHEN n.higher_is_better THEN n.value / b.value ELSE b.value / n.value END AS figure,
           n.usable AND b.usable, b.hardware_count <> n.hardware_count, n.source_id, n.record_no,
           b.source_id, b.record_no
    FROM stg_claims AS c
    JOIN int_best_eligible AS n
      ON  c.kind = 'software_gain' AND n.best_of_submitter AND n.verification = 'verified' AND n.round = c.round
      AND n.benchmark = c.benchmark AND n.submitter = c.submitter AND n.hardware_kind = 'accelerator'
      AND (c.accelerator IS NULL OR n.accelerator = c.accelerator)
      AND (c.scenario IS NULL OR n.scenario = c.scenario)
      AND (c.total_accelerators IS NULL OR n.total_accelerators = c.total_accelerators)
    JOIN int_best_eligible AS b
      ON  b.best_of_submitter AND b.verification = 'verified' AND b.submitter = n.submitter
      AND b.hardware = n.hardware AND b.benchmark = n.benchmark
      AND b.scenario = n.scenario AND b.units = n.units AND b.round_order < n.round_order
      AND b.round = coalesce(c.round_from, b.round)
      AND (b.hardware_count = n.hardware_count
           OR (n.value_per_accelerator IS NOT NULL AND b.value_per_accelerator IS NOT NULL))
    QUALIFY row_number() OVER (PARTITION BY c.id, n.source_id, n.record_no
                               ORDER BY b.hardware_count <> n.hardware_count, b.round_order DESC, figure DESC,
                                        b.source_id, b.record_no) = 1
    UNION ALL
    SELECT c.id, 'same_submitter',
           CASE WHEN c.kind = 'scaling_efficiency'
                    THEN (s.value / b.value) / (s.total_accelerators::DOUBLE / b.total_accelerators)
                WHEN c.direction = 'throughput' THEN s.value / b.value ELSE b.value / s.value END,
           n.usable AND b.usable, false, s.source_id, s.record_no, b.source_id, b.record_no
    FROM new_sides AS s
    JOIN stg_claims AS c ON c.id = s.id
    JOIN int_best_eligible AS n ON n.source_id = s.source_id AND n.record_no = s.record_no
    JOIN int_best_eligible AS b
      ON  b.best_of_submitter AND b.verification = 'verified' AND b.submitter = c.submitter
      AND b.round = s.round AND b.benchmark = c.benchmark AND b.scenario = s.scenario AND b.units = s.units
      AND b.accelerator = CASE WHEN c.kind = 'generation_speedup' THEN c.baseline_accelerator ELSE s.accelerator END
      AND b.total_accelerators = CASE WHEN c.kind = 'generation_speedup' THEN s.total_accelerators
                                      ELSE c.baseline_total_accelerators END
    WHERE c.kind IN ('generation_speedup', 'scaling_efficiency', 'scale_speedup')
),
pair_figures AS (
    -- the largest figure of each kind, a pair at one size first, then a pair of procurement-grade rows
    -- ("up to": across scenarios and sizes when the claim names none), with its rows as rows_used shows them
    SELECT p.id, p.figure_kind, p.figure, p.scale_changed,
           [{'role': 'new', 'result_id': n.result_id, 'submitter': n.submitter, 'round': n.round,
             'accelerator': n.accelerator, 'accelerator_count': n.total_accelerators, 'scenario': n.scenario,
             'result': n.value, 'result_unit': n.units, 'verification': n.verification,
             'label': coalesce(n.result_id, n.submitter || ' ' || n.platform), 'source_id': n.source_id,
             'record_no': n.record_no},
            {'role': 'base', 'result_id': b.result_id, 'submitter': b.submitter, 'round': b.round,
             'accelerator': b.accelerator, 'accelerator_count': b.total_accelerators, 'scenario': b.scenario,
             'result': b.value, 'result_unit': b.units, 'verification': b.verification,
             'label': coalesce(b.result_id, b.submitter || ' ' || b.platform), 'source_id': b.source_id,
             'record_no': b.record_no}] AS figure_rows
    FROM row_pairs AS p
    JOIN int_best_eligible AS n ON n.source_id = p.n_source_id AND n.record_no = p.n_record_no
    JOIN int_best_eligible AS b ON b.source_id = p.b_source_id AND b.record_no = p.b_record_no
    WHERE p.figure IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY p.id, p.figure_kind
                               ORDER BY p.scale_changed, NOT p.usable, p.figure DESC, n.result_id, b.result_id,
                                        n.source_id, n.record_no, b.source_id, b.record_no) = 1
),
best_relative AS (
    -- a software gain: the largest same-scale figure when one exists, else the largest across sizes
    SELECT id, figure AS recomputed_best, scenario AS best_scenario, weak_baseline,
           b_result_id AS best_baseline_result_id, b_submitter AS best_baseline_submitter,
           figure_rows AS rows_best, scale_changed AS best_scale_changed
    FROM figure_rows
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY scale_changed, figure DESC, result_id, b_result_id, source_id, record_no,
                                        b_source_id, b_record_no) = 1
),
cross_scale AS (
    SELECT id, figure AS cross_figure, figure_rows AS cross_rows
    FROM figure_rows
    WHERE scale_changed
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY figure DESC, result_id, b_result_id, source_id, record_no,
                                          b_source_id, b_record_no) = 1
),
equal_scale AS (
    -- the largest figure of two systems of one size: a software gain's same-scale figure, a
    -- generation speedup's (its baseline is taken at the new side's size)
    SELECT f.id, f.figure AS equal_figure, f.figure_rows AS equal_rows
    FROM figure_rows AS f
    JOIN stg_claims AS c ON c.id = f.id
    WHERE c.kind = 'generation_speedup' AND f.basis = 'same_scale' AND NOT f.scale_changed
    QUALIFY row_number() OVER (PARTITION BY f.id ORDER BY f.figure DESC, f.result_id, f.b_result_id, f.source_id,
                                            f.record_no, f.b_source_id, f.b_record_no) = 1
    UNION ALL
    SELECT id, figure, figure_rows FROM pair_figures WHERE figure_kind = 'hardware_best'
),
absolute_rows AS (
    -- every row matching an absolute claim, of any verification
    SELECT c.id, p.value, p.scenario, p.higher_is_better, p.result_id, p.source_id, p.record_no,
           [{'role': 'new', 'result_id': p.result_id, 'submitter': p.submitter, 'round': p.round,
             'accelerator': p.accelerator, 'accelerator_count': p.total_accelerators,
             'scenario': p.scenario, 'result': p.value, 'result_unit': p.units,
             'verification': p.verification, 'label': coalesce(p.result_id, p.submitter || ' ' || p.platform),
             'source_id': p.source_id, 'record_no': p.record_no}] AS rows_of_value
    FROM stg_claims AS c
    JOIN stg_results AS p
      ON  c.kind = 'absolute' AND p.metric = 'performance' AND p.round = c.round AND p.benchmark = c.benchmark
      AND p.higher_is_better = (c.direction = 'throughput')
      AND (c.accelerator IS NULL OR p.accelerator = c.accelerator)
      AND (c.total_accelerators IS NULL OR p.total_accelerators = c.total_accelerators)
      AND (c.scenario IS NULL OR p.scenario = c.scenario)
      AND (c.submitter IS NULL OR p.submitter = c.submitter)
),
best_absolute AS (
    SELECT id, value AS recomputed_best, scenario AS best_scenario, NULL::BOOLEAN AS weak_baseline,
           NULL AS best_baseline_result_id, NULL AS best_baseline_submitter, false AS best_scale_changed,
           rows_of_value AS rows_best
    FROM absolute_rows
    QUALIFY row_number() OVER (PARTITION BY id ORDER BY CASE WHEN higher_is_better THEN -value ELSE value END,
                                                        result_id, source_id, record_no) = 1
),
best AS (
    SELECT * FROM best_relative UNION ALL BY NAME SELECT * FROM best_absolute
),
audited AS (
    SELECT
        c.*,
        coalesce(len(c.cited_result_ids), 0) > 0 AS cites_entries,
        a.citation_problem,
        a.recomputed_as_cited,
        coalesce(a.rows_as_cited, []) AS rows_as_cited,
        c.kind = 'software_gain' AND a.cited_new_row.accelerator_count <> a.cited_base_row.accelerator_count
            AS cited_scale_changed,
        b.recomputed_best,
        coalesce(b.rows_best, []) AS rows_best,
        b.best_scale_changed,
        b.weak_baseline,
        b.best_baseline_result_id,
        b.best_baseline_submitter,
        -- the figure the verdict rests on: as cited, unless a software gain's cited entries differ in
        -- size and a same-scale figure exists
        cites_entries AND NOT (coalesce(cited_scale_changed, false) AND NOT coalesce(b.best_scale_changed, true))
            AS use_as_cited,
        CASE WHEN use_as_cited THEN a.recomputed_as_cited ELSE b.recomputed_best END AS recomputed,
        CASE WHEN use_as_cited THEN a.as_cited_scenario ELSE b.best_scenario END AS recomputed_scenario,
        CASE WHEN use_as_cited THEN coalesce(a.rows_as_cited, []) ELSE coalesce(b.rows_best, []) END AS rows_used,
        CASE WHEN use_as_cited THEN coalesce(cited_scale_changed, false) ELSE coalesce(b.best_scale_changed, false) END
            AS scale_changed,
        CASE WHEN coalesce(cited_scale_changed, false) THEN a.recomputed_as_cited ELSE x.cross_figure END
            AS recomputed_cross_scale,
        CASE WHEN coalesce(cited_scale_changed, false) THEN a.rows_as_cited ELSE coalesce(x.cross_rows, []) END
            AS rows_cross_scale,
        e.equal_figure AS recomputed_equal_scale,
        coalesce(e.equal_rows, []) AS rows_equal_scale,
        -- an absolute claim naming its submitter: its best is already the submitter's own row
        CASE WHEN c.kind = 'absolute' AND c.submitter IS NOT NULL THEN b.recomputed_best ELSE o.figure END
            AS recomputed_same_submitter,
        CASE WHEN c.kind = 'absolute' AND c.submitter IS NOT NULL THEN coalesce(b.rows_best, [])
             ELSE coalesce(o.figure_rows, []) END AS rows_same_submitter,
        coalesce(o.scale_changed, false) AS same_submitter_scale_changed,
        -- an absolute claim's figure is in the unit of the rows it is set against
        CASE WHEN c.kind = 'absolute' THEN coalesce(a.rows_as_cited[1].result_unit, b.rows_best[1].result_unit) END AS result_unit
    FROM stg_claims AS c
    LEFT JOIN as_cited AS a ON a.claim_id = c.id
    LEFT JOIN best AS b ON b.id = c.id
    LEFT JOIN cross_scale AS x ON x.id = c.id
    LEFT JOIN equal_scale AS e ON e.id = c.id
    LEFT JOIN pair_figures AS o ON o.id = c.id AND o.figure_kind = 'same_submitter'
),
flagged AS (
    -- the anomaly rules the rows a verdict rests on break by their own evidence (int_result_eligibility
    -- .disqualifying_findings), each row by its key (source_id, record_no): a row rebuilt from a
    -- submission tree has no result_id
    SELECT a.id, list_sort(list_distinct(flatten(list(e.disqualifying_findings)))) AS findings_used
    FROM audited AS a, unnest(a.rows_used) AS u(used)
    JOIN int_result_eligibility AS e ON e.source_id = used.source_id AND e.record_no = used.record_no
    GROUP BY a.id
),
excluded AS (
    -- rows of the claim's new side that take part in no comparison, and why (int_result_eligibility):
    -- named when nothing reproduces the claim, so "no rows" never hides rows that were left out
    SELECT c.id, count(*) AS excluded_rows, min(e.not_comparable_because) AS excluded_because
    FROM stg_claims AS c
    JOIN int_result_eligibility AS e
      ON  e.round = c.round AND e.benchmark = c.benchmark AND NOT e.comparable
      AND (c.scenario IS NULL OR e.scenario = c.scenario)
      AND (c.accelerator IS NULL OR e.accelerator = c.accelerator)
      AND (c.submitter IS NULL OR e.submitter = c.submitter)
    GROUP BY c.id
),
candidates AS (
    -- every figure the audit computed for a claim, cited or not, with the rows it rests on
    SELECT id, figure, list_transform(rows_of_figure, lambda r: {'label': r.label, 'verification': r.verification})
               AS figure_of
    FROM (SELECT id, figure, figure_rows AS rows_of_figure FROM figure_rows
          UNION ALL SELECT id, figure, figure_rows FROM pair_figures
          UNION ALL SELECT id, value, rows_of_value FROM absolute_rows
          UNION ALL SELECT id, recomputed_as_cited, rows_as_cited FROM audited WHERE recomputed_as_cited IS NOT NULL)
),
supporting AS (
    -- the figures that support a claim: those within 5% of its number (the rows that reproduce it);
    -- when none is, or it claims no number, every figure the data gives at its conditions
    SELECT k.id, list_bool_and(list_transform(k.figure_of, lambda r: r.verification = 'verified')) AS all_verified,
           list_filter(k.figure_of, lambda r: r.verification <> 'verified') AS unverified_rows
    FROM candidates AS k
    JOIN stg_claims AS c ON c.id = k.id
    QUALIFY coalesce(abs(k.figure / c.multiplier - 1) <= 0.05, false)
            OR NOT bool_or(coalesce(abs(k.figure / c.multiplier - 1) <= 0.05, false)) OVER (PARTITION BY k.id)
),
support AS (
    SELECT id, bool_or(all_verified) AS verified_figure, bool_and(all_verified) AS verified_only,
           list_sort(list_distinct(flatten(list(list_transform(unverified_rows,
               lambda r: r.label || ' (' || r.verification || ')'))))) AS unverified
    FROM supporting
    GROUP BY id
),
mislabelled AS (
    -- a stated stage the rows contradict: the cited ones, then the ones that support it, cited or not
    SELECT a.id,
           CASE WHEN a.stage = 'mlcommons_verified' AND list_bool_or(list_transform(a.rows_as_cited,
                         lambda r: r.verification <> 'verified'))
                    THEN format('stated mlcommons_verified, but it cites {}',
                                array_to_string(list_distinct(list_transform(list_filter(a.rows_as_cited,
                                    lambda r: r.verification <> 'verified'),
                                    lambda r: r.result_id || ' (' || r.verification || ')')), ', '))
                WHEN a.stage = 'preview' AND len(a.rows_as_cited) > 0 AND list_bool_and(list_transform(
                         a.rows_as_cited, lambda r: r.verification = 'verified'))
                    THEN 'stated preview, but every row it cites is verified'
                WHEN a.stage = 'mlcommons_verified' AND NOT s.verified_figure
                    THEN format('stated mlcommons_verified, but every figure that supports it rests on a row '
                                'not verified: {}{}', array_to_string(s.unverified[1:3], ', '),
                                CASE WHEN len(s.unverified) > 3 THEN format(' and {} more', len(s.unverified) - 3)
                                     ELSE '' END)
                WHEN a.stage = 'preview' AND s.verified_only
                    THEN 'stated preview, but every row that supports it is verified'
           END AS stage_contradiction
    FROM audited AS a
    LEFT JOIN support AS s USING (id)
),
judged AS (
    SELECT
        a.*, coalesce(fl.findings_used, []) AS findings_used, ex.excluded_rows, ex.excluded_because,
        ml.stage_contradiction,
        -- a post-deadline or self-tested figure cannot be in the warehouse: nothing here recomputes it
        stage NOT IN ('post_submission_unverified', 'vendor_self_test') AS recomputable,
        CASE WHEN recomputable THEN (recomputed - multiplier) / multiplier END AS relative_difference,
        -- the grade rests on the data alone (best against best, equal size), never on which ids are cited
        -- a software gain is graded at equal size: the claim's submitter's rows against the best baseline
        -- of their size (recomputed_best when no size changed) and the hardware's best against best
        -- (recomputed_equal_scale); only when neither exists, on the best figure across sizes
        CASE WHEN kind = 'software_gain' AND NOT coalesce(best_scale_changed, true) THEN recomputed_best END
            AS submitter_at_equal_size,
        kind = 'software_gain' AND (submitter_at_equal_size IS NOT NULL OR recomputed_equal_scale IS NOT NULL)
            AS graded_at_equal_size,
        CASE WHEN NOT recomputable THEN NULL
             WHEN graded_at_equal_size THEN greatest(submitter_at_equal_size, recomputed_equal_scale)
             WHEN kind = 'software_gain' THEN recomputed_best
             ELSE greatest(recomputed_best, recomputed_equal_scale) END AS figure_supported,
        CASE WHEN NOT recomputable THEN NULL
             WHEN graded_at_equal_size THEN least(submitter_at_equal_size, recomputed_equal_scale)
             WHEN kind = 'software_gain' THEN recomputed_best
             ELSE least(recomputed_best, recomputed_equal_scale) END AS figure_least,
        -- how far the claim reaches past what the data supports (a latency claimed absolutely: lower is more)
        CASE WHEN kind = 'absolute' AND direction = 'latency' THEN figure_supported / multiplier
             ELSE multiplier / figure_supported END AS reach_over_most,
        CASE WHEN kind = 'absolute' AND direction = 'latency' THEN figure_least / multiplier
             ELSE multiplier / figure_least END AS reach_over_least,
        CASE WHEN multiplier IS NULL THEN NULL
             WHEN figure_supported IS NULL THEN 'unsupported'
             WHEN reach_over_most > 1.05 THEN 'overstated'
             WHEN reach_over_least < 0.95 THEN 'understated'
             ELSE 'holds' END AS grade,
        list_contains(list_transform(rows_used, lambda r: r.verification), 'preview') AS uses_preview,
        len(rows_used) > 0
            AND list_bool_and(list_transform(rows_used, lambda r: r.verification = 'verified')) AS all_verified,
        -- a software gain's figure across two sizes, said beside the one the verdict rests on
        CASE WHEN kind = 'software_gain' AND recomputed_cross_scale IS NOT NULL AND NOT scale_changed
             THEN format('; across sizes ({} -> {} accelerators{}) it is {}',
                         rows_cross_scale[2].accelerator_count, rows_cross_scale[1].accelerator_count,
                         CASE WHEN coalesce(cited_scale_changed, false) THEN ', the claim''s own rows' ELSE '' END,
                         round(recomputed_cross_scale, 4))
             ELSE '' END AS cross_scale_note,
        -- an absolute claim's figures are said with their unit
        -- ('Latency (s)' as 's', the way a claim writes it)
        CASE WHEN kind <> 'absolute' OR result_unit IS NULL THEN ''
             ELSE ' ' || coalesce(nullif(regexp_extract(result_unit, '^Latency \((.+)\)$', 1), ''), result_unit)
        END AS unit_said,
        CASE grade WHEN 'overstated'
                       THEN format('is {}% above the most the data supports, {}{}',
                                   round(100 * (reach_over_most - 1), 1), round(figure_supported, 4), unit_said)
                   WHEN 'understated'
                       THEN format('is {}% below the least the data supports, {}{}',
                                   round(100 * (1 - reach_over_least), 1), round(figure_least, 4), unit_said)
                   ELSE 'is within 5% of what the data supports' END AS standing,
        CASE WHEN recomputed_as_cited IS NOT NULL
             THEN format('; as cited {} (the citation is checked apart: verdict)', round(recomputed_as_cited, 4))
             ELSE '' END AS as_cited_note,
        format('the data supports {}{}{}{}{}',
               CASE WHEN recomputed_best IS NOT NULL
                    THEN 'best against best ' || round(recomputed_best, 4) || unit_said ELSE '' END,
               CASE WHEN recomputed_equal_scale IS NOT NULL
                    THEN format('{}at equal size ({} accelerators, {}) {}',
                                CASE WHEN recomputed_best IS NULL THEN '' ELSE ', ' END,
                                rows_equal_scale[1].accelerator_count, rows_equal_scale[1].scenario,
                                round(recomputed_equal_scale, 4))
                    ELSE '' END,
               CASE WHEN recomputed_same_submitter IS NOT NULL AND kind <> 'absolute'
                    THEN format('; the submitter''s own ({}: {} over {}) {}', rows_same_submitter[1].scenario,
                                rows_same_submitter[1].label, rows_same_submitter[2].label,
                                round(recomputed_same_submitter, 4))
                    ELSE '' END,
               CASE WHEN recomputed_cross_scale IS NOT NULL
                    THEN format('; across sizes {} (not software alone)', round(recomputed_cross_scale, 4))
                    ELSE '' END,
               as_cited_note) AS other_figures,
        -- a software gain: the figure its grade rests on (the most supported, the least for an understated
        -- claim), then every figure with its rows
        CASE WHEN grade = 'understated' THEN figure_least ELSE figure_supported END AS graded_figure,
        format('graded on {}, {}{}{}{}{}{}',
               CASE WHEN NOT graded_at_equal_size THEN 'the best figure across sizes, as no equal-size figure exists'
                    WHEN graded_figure = recomputed_equal_scale THEN 'the equal-size figure, best against best'
                    ELSE 'the equal-size figure of the submitter''s rows against the best baseline' END,
               round(graded_figure, 4),
               CASE WHEN recomputed_equal_scale IS NOT NULL
                    THEN format('; best against best at equal size ({} accelerators, {}: {} over {}) {}',
                                rows_equal_scale[1].accelerator_count, rows_equal_scale[1].scenario,
                                rows_equal_scale[1].label, rows_equal_scale[2].label, round(recomputed_equal_scale, 4))
                    ELSE '' END,
               CASE WHEN recomputed_best IS NOT NULL AND NOT coalesce(best_scale_changed, false)
                    THEN format('; the submitter''s rows against the best baseline ({} -> {} accelerators, {}: {} over {}) {}',
                                rows_best[2].accelerator_count, rows_best[1].accelerator_count, rows_best[1].scenario,
                                rows_best[1].label, rows_best[2].label, round(recomputed_best, 4))
                    ELSE '' END,
               CASE WHEN recomputed_same_submitter IS NULL THEN ''
                    WHEN same_submitter_scale_changed
                    THEN format('; the submitter''s own across sizes ({} -> {} accelerators, {}: {} over {}) {} '
                                '(not software alone)',
                                rows_same_submitter[2].accelerator_count, rows_same_submitter[1].accelerator_count,
                                rows_same_submitter[1].scenario, rows_same_submitter[1].label,
                                rows_same_submitter[2].label, round(recomputed_same_submitter, 4))
                    ELSE format('; the submitter''s own at equal size ({} accelerators, {}: {} over {}) {}',
                                rows_same_submitter[1].accelerator_count, rows_same_submitter[1].scenario,
                                rows_same_submitter[1].label, rows_same_submitter[2].label,
                                round(recomputed_same_submitter, 4)) END,
               CASE WHEN recomputed_cross_scale IS NOT NULL AND graded_at_equal_size
                    THEN format('; across sizes ({} -> {} accelerators, {}: {} over {}) {} (not software alone)',
                                rows_cross_scale[2].accelerator_count, rows_cross_scale[1].accelerator_count,
                                rows_cross_scale[1].scenario, rows_cross_scale[1].label, rows_cross_scale[2].label,
                                round(recomputed_cross_scale, 4))
                    ELSE '' END,
               as_cited_note) AS software_figures
    FROM audited AS a
    LEFT JOIN flagged AS fl USING (id)
    LEFT JOIN excluded AS ex USING (id)
    LEFT JOIN mislabelled AS ml USING (id)
)
SELECT
    id, vendor, kind, direction, stage, round, round_from, model, benchmark, scenario, recomputed_scenario,
    accelerator, baseline_accelerator, total_accelerators, baseline_total_accelerators, submitter,
    -- the claimed number: a multiplier (or an efficiency), or an absolute claim's result in its unit
    CASE WHEN kind <> 'absolute' THEN multiplier END AS multiplier,
    CASE WHEN kind = 'absolute' THEN multiplier END AS result_claimed, result_unit, grade,
    CASE WHEN grade = 'overstated' THEN reach_over_most - 1 END AS overstated_by,
    CASE
        WHEN multiplier IS NULL THEN 'no number was claimed'
        WHEN NOT recomputable THEN format('stage {}: no published result can hold its figure', stage)
        WHEN figure_supported IS NULL AND excluded_rows > 0
            THEN format('no comparable rows reproduce it: {} matching row{} left out ({})', excluded_rows,
                        CASE WHEN excluded_rows = 1 THEN ' is' ELSE 's are' END, excluded_because)
        WHEN figure_supported IS NULL THEN 'no rows reproduce it'
        ELSE format('{}{} {}; {}', multiplier, unit_said, standing, CASE WHEN kind = 'software_gain' THEN software_figures
                                                        ELSE other_figures END)
    END AS grade_reason,
    stage_contradiction,
    figure_supported, recomputed, relative_difference, recomputed_as_cited, recomputed_best,
    recomputed_equal_scale, rows_equal_scale, recomputed_same_submitter, rows_same_submitter, weak_baseline,
    best_baseline_result_id, best_baseline_submitter, rows_used, rows_as_cited, rows_best,
    scale_changed, recomputed_cross_scale, rows_cross_scale, findings_used,
    CASE
        WHEN citation_problem IS NOT NULL THEN 'unclassified'
        WHEN stage IN ('post_submission_unverified', 'vendor_self_test')
            THEN 'directional only - do not put it in a procurement decision'
        WHEN stage = 'preview' OR uses_preview
            THEN 'promising, but the platform is not shipping today'
        WHEN scale_changed OR len(findings_used) > 0
            THEN 'directional only - do not put it in a procurement decision'
        WHEN recomputed IS NULL OR multiplier IS NULL OR abs(relative_difference) > 0.05
            THEN 'directional only - do not put it in a procurement decision'
        WHEN stage = 'mlcommons_verified' AND all_verified
            THEN 'comparable across submitters'
        ELSE 'unclassified'
    END AS verdict,
    CASE
        WHEN citation_problem IS NOT NULL THEN 'as cited: ' || citation_problem
        WHEN stage IN ('post_submission_unverified', 'vendor_self_test') THEN 'stage ' || stage
        WHEN stage = 'preview' THEN 'stage preview'
        WHEN uses_preview THEN 'a row used is a preview submission'
        WHEN scale_changed
            THEN format('the gain compares a {}-accelerator system with a {}-accelerator one: scale, not software '
                        'alone, and {} ({}){}',
                        rows_used[2].accelerator_count, rows_used[1].accelerator_count,
                        CASE WHEN recomputed_equal_scale IS NULL THEN 'no result at equal size reproduces it'
                             ELSE 'the claim''s rows have no pair at equal size' END,
                        round(recomputed, 4),
                        CASE WHEN recomputed_equal_scale IS NOT NULL
                             THEN format('; the grade rests on the hardware''s best against best at equal size, {}',
                                         round(recomputed_equal_scale, 4))
                             ELSE '' END)
        WHEN len(findings_used) > 0
            THEN format('a row it rests on breaks an anomaly rule ({}; see anomalies)', array_to_string(findings_used, ', '))
        WHEN recomputed IS NULL THEN 'no rows reproduce it'
        WHEN multiplier IS NULL THEN 'no number was claimed'
        WHEN abs(relative_difference) > 0.05
            THEN format('recomputed {}{} is {}% from the claimed {}{}', round(recomputed, 4),
                        CASE WHEN kind = 'software_gain'
                             THEN format(' at equal size ({} accelerators)', rows_used[1].accelerator_count)
                             ELSE '' END,
                        round(100 * relative_difference, 1), multiplier, cross_scale_note)
        WHEN stage = 'mlcommons_verified' AND all_verified
            THEN format('verified rows reproduce it within 5% ({}%){}{}', round(100 * relative_difference, 1),
                        CASE WHEN kind = 'software_gain'
                             THEN format(' at equal size ({} accelerators)', rows_used[1].accelerator_count)
                             ELSE '' END, cross_scale_note)
        ELSE 'a row used is not verified (' || array_to_string(list_distinct(
                 list_transform(rows_used, lambda r: r.verification)), ', ') || ')'
    END AS verdict_reason,
    citation_problem,
    verdict = 'comparable across submitters' AS procurement_grade,
    statement, source, published_on, cited_result_ids
FROM judged
