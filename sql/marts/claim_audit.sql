-- Does each vendor claim hold up when recomputed from the warehouse, as cited and against the best
-- baseline you could buy, and how far may it be trusted?
-- recomputed_as_cited: from exactly the entries the claim cites; recomputed_best: the new side against
-- the best verified result of the baseline hardware, whoever submitted it. Figures: throughput
-- new / base, latency base / new (times better); scaling_efficiency (new / base) / (accelerators_new /
-- accelerators_base); software_gain at equal size (new / base), shown with the per-accelerator figure
-- across sizes, (new / accelerators_new) / (base / accelerators_base), when the claim's rows change size.
-- relative_difference = (recomputed - multiplier) / multiplier. verdict: the seeds' wording.
-- Every rule: the header of sql/intermediate/int_claim_audit.sql, which computes it once per load.
SELECT * RENAME (total_accelerators AS accelerator_count, baseline_total_accelerators AS baseline_accelerator_count)
FROM int_claim_audit
