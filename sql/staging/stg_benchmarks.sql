-- Which published model names denote which canonical benchmark, and what does it produce?
-- One row per alias of warehouse/identity/reference/benchmarks.csv (the ref_benchmarks seed): alias as written,
-- alias_key = lower(trim(alias)) (how published names are matched), benchmark, kind ('benchmark',
-- or 'category' for a name such as "VLM" that names a family) and output_unit.
SELECT *, lower(trim(alias)) AS alias_key FROM ref_benchmarks
