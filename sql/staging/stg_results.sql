-- Every loaded row (performance and power) with its identity resolved from today's reference tables.
-- `results` keeps names as published; this model adds them at view time, so an edited reference
-- CSV reaches every row without a refetch (`mlperf-wh views refresh`).
-- accelerator: the canonical accelerator of the published name (base_accelerator_names says how).
-- vendor, family, generation (order within a vendor, newer is larger), tdp_watts: the canonical
--   accelerator's, from ref_accelerators; null for a mixed or unmatched name.
-- benchmark: the canonical benchmark of the published model name (base_benchmark_names says how);
--   the published model name when no alias matches (benchmark_matched = false). output_unit: the
--   benchmark's (tokens, samples...).
-- round_order sorts rounds numerically (v10.0 after v9.1).
-- value_per_accelerator = value / total_accelerators for higher-is-better units; null for latency,
--   power and CPU-only systems.
-- tokens_per_second: the result itself for units Tokens/s; for Samples/s (or Queries/s: one query
--   is one sample), the rate x the TOKENS_PER_SAMPLE the accuracy field reports; else null.
-- run_path: the run folder of the submission tree, the published Location without a leading './'
--   or trailing '/', with '/performance/run_1' appended when the round left it out (as
--   warehouse/trees.py run_folder does); system_path: '<division>/<submitter>/systems/<platform>.json'
--   from the same folder's parts. Both null when the row names no folder of that shape.
-- Names are resolved once per distinct name (sql/base/), then joined to the rows.
WITH accelerators AS (
    SELECT DISTINCT accelerator, vendor, family, generation, tdp_watts FROM ref_accelerators
),
round_orders AS (
    SELECT round,
           round_order(round) AS round_order
    FROM (SELECT DISTINCT round FROM results)
),
identified AS (
    SELECT
        r.*,
        n.accelerator, a.vendor, a.family, a.generation, a.tdp_watts,
        coalesce(b.benchmark, r.model) AS benchmark,
        b.benchmark IS NOT NULL AS benchmark_matched,
        b.output_unit,
        ro.round_order,
        CASE WHEN r.higher_is_better AND r.total_accelerators > 0
             THEN r.value / r.total_accelerators END AS value_per_accelerator,
        CASE WHEN r.units = 'Tokens/s' THEN r.value
             WHEN r.units IN ('Samples/s', 'Queries/s') THEN r.value * r.tokens_per_sample
        END AS tokens_per_second,
        trim(regexp_replace(trim(r.location), '^\./', ''), '/') AS folder,
        split_part(folder, '/', 3) = 'results' AND len(string_split(folder, '/')) >= 6 AS is_run_folder
    FROM results AS r
    LEFT JOIN base_accelerator_names AS n USING (accelerator_raw)
    LEFT JOIN accelerators AS a ON a.accelerator = n.accelerator
    LEFT JOIN base_benchmark_names AS b
        ON b.model IS NOT DISTINCT FROM r.model AND b.used_model IS NOT DISTINCT FROM r.used_model
    LEFT JOIN round_orders AS ro ON ro.round = r.round
)
SELECT
    * EXCLUDE (folder, is_run_folder),
    CASE WHEN NOT is_run_folder THEN NULL
         WHEN folder LIKE '%/performance/run_1' THEN folder
         ELSE folder || '/performance/run_1' END AS run_path,
    CASE WHEN is_run_folder
         THEN split_part(folder, '/', 1) || '/' || split_part(folder, '/', 2) || '/systems/'
              || split_part(folder, '/', 4) || '.json' END AS system_path
FROM identified
