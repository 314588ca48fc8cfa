-- Which capacity decisions rest on claims that are not procurement grade?
-- Every decision with the verdicts of the claims it used; flagged = true when any claim it used is
-- not procurement grade (preview, post-submission, self-tested, or not reproduced by verified rows).
-- weak_baseline_claims: the claims used whose cited baseline is more than 2% below the best verified
-- baseline of the round (claim_audit.weak_baseline); they may be procurement grade as cited, yet the
-- gain against the best system you could buy is smaller.
-- Your own measurements: own_measurements lists the runs measured_by names (an item equal to a run's
-- label or run id), with their figures; measured_by_not_loaded the items that name no loaded run (a
-- sentence stays there). measurement_checks sets them against the claims used, where a run speaks
-- to one (generated tokens per second per accelerator, throughput claims only):
--   absolute claim on accelerator A for a benchmark of the run's family (one that counts tokens):
--     your run on A against the claimed figure / the claim's total accelerators;
--   generation_speedup A over B: your run on A over your run on B, of one family and one interaction
--     pattern (the same max_concurrency and request_rate), against the claimed multiplier.
--   own_over_claimed = own figure / claimed figure; disagrees when it is more than 20% away from 1.
-- own_measurement_disagrees: any check disagrees (the claim rests on a number your replay does not see).
WITH used AS (
    SELECT d.id AS decision_id, u.claim_id
    FROM stg_decisions AS d, unnest(d.claims_used) AS u(claim_id)
),
verdicts AS (
    SELECT
        u.decision_id,
        list(u.claim_id ORDER BY u.claim_id) FILTER (WHERE NOT coalesce(a.procurement_grade, false))
            AS non_procurement_grade_claims,
        list(u.claim_id ORDER BY u.claim_id) FILTER (WHERE a.weak_baseline) AS weak_baseline_claims,
        list({'claim_id': u.claim_id, 'verdict': a.verdict, 'weak_baseline': a.weak_baseline}
             ORDER BY u.claim_id) AS claim_verdicts
    FROM used AS u
    LEFT JOIN int_claim_audit AS a ON a.id = u.claim_id
    GROUP BY u.decision_id
),
measured AS (
    SELECT d.id AS decision_id, t.item, o.run_id
    FROM stg_decisions AS d, unnest(d.measured_by_items) AS t(item)
    LEFT JOIN stg_own_measurements AS o ON o.run_id = t.item OR o.label = t.item
),
runs AS (
    SELECT DISTINCT m.decision_id, o.*
    FROM measured AS m JOIN stg_own_measurements AS o USING (run_id)
),
token_benchmarks AS (
    SELECT DISTINCT benchmark FROM stg_benchmarks WHERE kind = 'benchmark' AND output_unit = 'tokens'
),
claims_used AS (
    SELECT u.decision_id, c.*
    FROM used AS u
    JOIN stg_claims AS c ON c.id = u.claim_id
    WHERE c.direction = 'throughput' AND c.multiplier IS NOT NULL
      AND c.benchmark IN (SELECT benchmark FROM token_benchmarks)
),
checks AS (
    SELECT c.decision_id, c.id AS claim_id, c.kind, [r.run_id] AS run_ids,
           r.tokens_per_second_per_accelerator AS own_figure,
           c.multiplier / c.total_accelerators AS claimed_figure,
           'tokens/s per accelerator on ' || c.accelerator AS compared
    FROM claims_used AS c
    JOIN runs AS r ON r.decision_id = c.decision_id AND r.accelerator = c.accelerator
                  AND list_contains(r.benchmarks, c.benchmark)
    WHERE c.kind = 'absolute' AND c.total_accelerators IS NOT NULL
    UNION ALL
    SELECT c.decision_id, c.id, c.kind, [n.run_id, b.run_id],
           n.tokens_per_second_per_accelerator / b.tokens_per_second_per_accelerator,
           c.multiplier,
           'x per accelerator, ' || c.accelerator || ' over ' || c.baseline_accelerator
    FROM claims_used AS c
    JOIN runs AS n ON n.decision_id = c.decision_id AND n.accelerator = c.accelerator
                  AND list_contains(n.benchmarks, c.benchmark)
    JOIN runs AS b ON b.decision_id = c.decision_id AND b.accelerator = c.baseline_accelerator
                  AND b.family = n.family AND b.max_concurrency IS NOT DISTINCT FROM n.max_concurrency
                  AND b.request_rate IS NOT DISTINCT FROM n.request_rate
    WHERE c.kind = 'generation_speedup'
),
judged AS (
    SELECT *, own_figure / claimed_figure AS own_over_claimed, abs(own_figure / claimed_figure - 1) > 0.2 AS disagrees
    FROM checks
),
measurements AS (
    SELECT
        m.decision_id,
        list(DISTINCT m.item ORDER BY m.item) FILTER (WHERE m.run_id IS NULL) AS measured_by_not_loaded,
        (SELECT list({'run_id': r.run_id, 'label': r.label, 'model_id': r.model_id, 'family': r.family,
                      'accelerator': r.accelerator, 'accelerator_count': r.accelerators,
                      'max_concurrency': r.max_concurrency, 'tokens_per_second_per_accelerator':
                      r.tokens_per_second_per_accelerator, 'tokens_per_second_per_rack': r.tokens_per_second_per_rack,
                      'ttft_p99_ms': r.ttft_p99_ms, 'tpot_p99_ms': r.tpot_p99_ms} ORDER BY r.run_id)
         FROM runs AS r WHERE r.decision_id = m.decision_id) AS own_measurements,
        (SELECT list({'claim_id': j.claim_id, 'kind': j.kind, 'run_ids': j.run_ids, 'compared': j.compared,
                      'own_figure': j.own_figure, 'claimed_figure': j.claimed_figure,
                      'own_over_claimed': j.own_over_claimed, 'disagrees': j.disagrees}
                     ORDER BY j.claim_id, j.run_ids)
         FROM judged AS j WHERE j.decision_id = m.decision_id) AS measurement_checks
    FROM measured AS m
    GROUP BY m.decision_id
)
SELECT
    d.id, d.title, d.workload, d.metric, d.measured_by, d.decision, d.decided_on,
    d.claims_used, d.claims_excluded, d.review_due, d.review_round, d.review_date,
    coalesce(len(v.non_procurement_grade_claims), 0) > 0 AS flagged,
    coalesce(v.non_procurement_grade_claims, []) AS non_procurement_grade_claims,
    coalesce(v.weak_baseline_claims, []) AS weak_baseline_claims,
    coalesce(v.claim_verdicts, []) AS claim_verdicts,
    coalesce(ms.own_measurements, []) AS own_measurements,
    coalesce(ms.measured_by_not_loaded, []) AS measured_by_not_loaded,
    coalesce(ms.measurement_checks, []) AS measurement_checks,
    coalesce(list_bool_or(list_transform(ms.measurement_checks, lambda c: c.disagrees)), false) AS own_measurement_disagrees,
    d.decision_file
FROM stg_decisions AS d
LEFT JOIN verdicts AS v ON v.decision_id = d.id
LEFT JOIN measurements AS ms ON ms.decision_id = d.id
