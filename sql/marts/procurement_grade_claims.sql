-- Which claims may enter a procurement decision? Only those whose verdict is 'comparable across
-- submitters': stage mlcommons_verified, every row used verified, recomputed within 5% of the claim
-- (as cited when the claim cites entries, and then only when they match it; else best-vs-best).
-- weak_baseline stays visible here: a claim can reproduce as cited from a weaker baseline than the
-- round's best verified one (recomputed_best is then the smaller gain against what you could buy).
SELECT * RENAME (total_accelerators AS accelerator_count, baseline_total_accelerators AS baseline_accelerator_count)
FROM int_claim_audit WHERE procurement_grade
