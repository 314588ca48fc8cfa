-- Which of your own serving runs are loaded, and what are they in MLPerf's names?
-- One row per run of own_measurements (`mlperf-wh measurements load`), verification 'own measurement'.
-- accelerator: the canonical accelerator of the name you gave, by the rule MLPerf rows follow
--   (base_accelerator_names); null when no pattern of accelerators.csv matches it (listed in `drift`).
-- family: the MLPerf model of model_id (family_of: the first pattern of model_ids.csv that matches
--   and whose `exclude` pattern does not; null, and listed in `drift`, when none does); benchmarks:
--   the MLPerf benchmarks that run it.
-- tokens_per_second_per_accelerator = output_tokens_per_second / accelerators; per rack: x
--   accelerators_per_rack of rack_capacity.csv, with its assumption and how the rack figure was got
--   (rack_basis), as token_economics states them for MLPerf rows.
WITH resolved AS (
    SELECT m.*, a.accelerator, family_of(m.model_id) AS family
    FROM own_measurements AS m
    LEFT JOIN base_accelerator_names AS a USING (accelerator_raw)
),
families AS (
    SELECT DISTINCT family, string_split(benchmarks, ' ') AS benchmarks FROM ref_model_ids
)
SELECT
    r.*, f.benchmarks,
    r.output_tokens_per_second / r.accelerators AS tokens_per_second_per_accelerator,
    rc.accelerators_per_rack, rc.assumption AS rack_assumption,
    CASE WHEN rc.accelerators_per_rack IS NULL THEN NULL
         WHEN r.accelerators >= rc.accelerators_per_rack THEN format('measured on {} accelerators', r.accelerators)
         ELSE format('extrapolated from {} accelerators', r.accelerators) END AS rack_basis,
    r.output_tokens_per_second / r.accelerators * rc.accelerators_per_rack AS tokens_per_second_per_rack,
    mf.path AS file_path, mf.format AS file_format, mf.loaded_at
FROM resolved AS r
LEFT JOIN families AS f USING (family)
LEFT JOIN ref_rack_capacity AS rc ON rc.accelerator = r.accelerator
LEFT JOIN measurement_files AS mf ON mf.sha256 = r.file_sha256
