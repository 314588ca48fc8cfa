-- Does each vendor claim hold up when recomputed from the warehouse, as cited and against the best
-- baseline you could buy, and how far may it be trusted?
-- recomputed_as_cited: from exactly the entries the claim cites; recomputed_best: the new side against
-- the best verified result of the baseline hardware, whoever submitted it. Figures: throughput
-- new / base, latency base / new (times better); scaling_efficiency (new / base) / (accelerators_new /
-- accelerators_base); software_gain at equal size (new / base), shown with the per-accelerator figure
-- across sizes, (new / accelerators_new) / (base / accelerators_base), when the claim's rows change size.
-- relative_difference = (recomputed - multiplier) / multiplier. verdict: the seeds' wording, and the
-- same as data: verdict_label (a table's few words) and verdict_meaning (what to do with the claim).
-- Every rule: the header of sql/intermediate/int_claim_audit.sql, which computes it once per load.
WITH verdicts (verdict, verdict_label, verdict_meaning) AS (
    VALUES
    ('comparable across submitters', 'comparable across submitters',
     'verified rows reproduce it within 5%: it may go into a procurement decision'),
    ('promising, but the platform is not shipping today', 'promising',
     'the platform is not shipping today'),
    ('directional only - do not put it in a procurement decision', 'directional only',
     'do not put it in a procurement decision'),
    ('unclassified', 'unclassified',
     'its cited entries do not match it, or its evidence fits no rule: read verdict_reason')
)
SELECT a.* RENAME (total_accelerators AS accelerator_count, baseline_total_accelerators AS baseline_accelerator_count),
       v.verdict_label, v.verdict_meaning
FROM int_claim_audit AS a
LEFT JOIN verdicts AS v ON v.verdict = a.verdict
