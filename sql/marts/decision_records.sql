-- Which capacity decisions rest on claims that are not procurement grade?
-- Every decision with the verdicts of the claims it used (claim_audit); flagged = true when any claim
-- it used is not procurement grade; weak_baseline_claims: the claims used whose cited baseline is more
-- than 2% below the best verified baseline of the round. Definition: int_decision_records.
SELECT * FROM int_decision_records
