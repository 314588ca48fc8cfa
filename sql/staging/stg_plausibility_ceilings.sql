-- How large may a software gain or a generation speedup be before it needs corroboration?
-- One row per comparison of warehouse/identity/reference/plausibility_ceilings.csv (the
-- ref_plausibility_ceilings seed): the ceiling and the corroborated pairs it was derived from.
SELECT * FROM ref_plausibility_ceilings
