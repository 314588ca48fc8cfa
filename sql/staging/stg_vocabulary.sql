-- Which words does the warehouse know for each kind of term (unit, scenario, division, availability, suite)?
-- One row per (kind, term) of the schema's vocabulary (the ref_vocabulary seed, schemas/results.py):
-- what drift compares each loaded row with.
SELECT * FROM ref_vocabulary
