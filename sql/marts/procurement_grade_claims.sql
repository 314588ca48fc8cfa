-- Which claims may enter a procurement decision? Only those whose verdict is 'comparable across
-- submitters': stage mlcommons_verified, every row used verified, recomputed within 5% of the claim.
SELECT * FROM claim_audit WHERE procurement_grade
