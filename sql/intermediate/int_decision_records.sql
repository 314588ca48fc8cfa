-- Which capacity decisions rest on claims that are not procurement grade?
-- Every decision with the verdicts of the claims it used; flagged = true when any claim it used is
-- not procurement grade (preview, post-submission, self-tested, or not reproduced by verified rows).
-- weak_baseline_claims: the claims used whose cited baseline is more than 2% below the best verified
-- baseline of the round (claim_audit.weak_baseline); they may be procurement grade as cited, yet the
-- gain against the best system you could buy is smaller.
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
)
SELECT
    d.id, d.title, d.workload, d.metric, d.measured_by, d.decision, d.decided_on,
    d.claims_used, d.claims_excluded, d.review_due, d.review_round, d.review_date,
    coalesce(len(v.non_procurement_grade_claims), 0) > 0 AS flagged,
    coalesce(v.non_procurement_grade_claims, []) AS non_procurement_grade_claims,
    coalesce(v.weak_baseline_claims, []) AS weak_baseline_claims,
    coalesce(v.claim_verdicts, []) AS claim_verdicts,
    d.decision_file
FROM stg_decisions AS d
LEFT JOIN verdicts AS v ON v.decision_id = d.id
