-- Every loaded row (performance and power) with its identity resolved from today's reference tables.
-- `results` keeps names as published; this model adds them at view time, so an edited reference
-- CSV reaches every row without a refetch (`mlperf-wh views refresh`).
-- accelerator: the canonical accelerator of the published name. The name is cleaned first
--   (trademark marks and "(TM)"/"(R)", count and power-cap annotations such as "(x8)" or
--   "(Power Cap 1000 W)", and every kind of white space run folded to one space); then each part of
--   a multi-accelerator name (parts joined by ",", "and" or "+") takes the accelerator of the first
--   pattern of ref_accelerators (file order) that it matches, case as the pattern says (the macro
--   accelerator_of, written from ref_accelerators at each materialize). The parts'
--   canonical names, distinct, sorted and joined with " + " (for example "MI300X + MI325X"); null
--   when any part matches no pattern (`mlperf-wh drift` lists those names).
-- vendor, family, generation (order within a vendor, newer is larger), tdp_watts: the canonical
--   accelerator's, from ref_accelerators; null for a mixed or unmatched name.
-- benchmark: the canonical benchmark of ref_benchmarks, matched case-insensitively on the
--   published model name (when that name is a category such as "VLM", on the model actually run);
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
-- Each name is resolved once per distinct name, then joined to the rows. NOT MATERIALIZED: on a
-- few thousand rows, storing the CTEs read twice cost more than the query (about 20 ms of 40).
WITH accelerator_names AS NOT MATERIALIZED (
    SELECT DISTINCT accelerator_raw FROM results WHERE accelerator_raw IS NOT NULL
),
cleaned AS NOT MATERIALIZED (
    SELECT
        accelerator_raw,
        regexp_replace(
            regexp_replace(
                regexp_replace(accelerator_raw, '[™®©]|\((?i:tm|r)\)', '', 'g'),
                '\((?i:x\d+|power cap[^)]*)\)', '', 'g'),
            '[\s\x{00A0}\x{2000}-\x{200B}\x{202F}\x{205F}\x{3000}]+', ' ', 'g') AS cleaned
    FROM accelerator_names
),
parts AS NOT MATERIALIZED (
    SELECT accelerator_raw, trim(part) AS part
    FROM cleaned, unnest(regexp_split_to_array(cleaned, ',|(?i:\band\b)|\+')) AS t(part)
    WHERE trim(part) <> ''
),
matched AS NOT MATERIALIZED (
    SELECT accelerator_raw, part, accelerator_of(part) AS accelerator
    FROM parts
),
canonical_accelerators AS NOT MATERIALIZED (
    SELECT
        accelerator_raw,
        CASE WHEN bool_and(accelerator IS NOT NULL)
             THEN string_agg(DISTINCT accelerator, ' + ' ORDER BY accelerator) END AS accelerator
    FROM matched
    GROUP BY accelerator_raw
    UNION ALL
    SELECT accelerator_raw, NULL FROM cleaned
    WHERE accelerator_raw NOT IN (SELECT accelerator_raw FROM parts)
),
accelerators AS NOT MATERIALIZED (
    SELECT DISTINCT accelerator, vendor, family, generation, tdp_watts FROM ref_accelerators
),
aliases AS NOT MATERIALIZED (
    SELECT lower(trim(alias)) AS alias, benchmark, kind FROM ref_benchmarks
),
model_aliases AS NOT MATERIALIZED (
    SELECT m.model, a.benchmark, a.kind
    FROM (SELECT DISTINCT model FROM results) AS m
    JOIN aliases AS a ON a.alias = lower(trim(m.model))
),
used_model_aliases AS NOT MATERIALIZED (
    SELECT u.used_model, a.benchmark
    FROM (SELECT DISTINCT used_model FROM results WHERE used_model IS NOT NULL) AS u
    JOIN aliases AS a ON a.alias = lower(trim(u.used_model)) AND a.kind = 'benchmark'
),
outputs AS NOT MATERIALIZED (
    SELECT DISTINCT benchmark, output_unit FROM ref_benchmarks WHERE kind = 'benchmark'
),
round_orders AS NOT MATERIALIZED (
    SELECT round,
           round_order(round) AS round_order
    FROM (SELECT DISTINCT round FROM results)
),
identified AS NOT MATERIALIZED (
    SELECT
        r.*,
        n.accelerator, a.vendor, a.family, a.generation, a.tdp_watts,
        CASE WHEN ma.kind = 'category' THEN ua.benchmark ELSE ma.benchmark END AS resolved_benchmark,
        coalesce(resolved_benchmark, r.model) AS benchmark,
        resolved_benchmark IS NOT NULL AS benchmark_matched,
        o.output_unit,
        ro.round_order,
        CASE WHEN r.higher_is_better AND r.total_accelerators > 0
             THEN r.value / r.total_accelerators END AS value_per_accelerator,
        CASE WHEN r.units = 'Tokens/s' THEN r.value
             WHEN r.units IN ('Samples/s', 'Queries/s') THEN r.value * r.tokens_per_sample
        END AS tokens_per_second,
        trim(regexp_replace(trim(r.location), '^\./', ''), '/') AS folder,
        split_part(folder, '/', 3) = 'results' AND len(string_split(folder, '/')) >= 6 AS is_run_folder
    FROM results AS r
    LEFT JOIN canonical_accelerators AS n USING (accelerator_raw)
    LEFT JOIN accelerators AS a ON a.accelerator = n.accelerator
    LEFT JOIN model_aliases AS ma ON ma.model = r.model
    LEFT JOIN used_model_aliases AS ua ON ua.used_model = r.used_model
    LEFT JOIN outputs AS o ON o.benchmark = CASE WHEN ma.kind = 'category' THEN ua.benchmark ELSE ma.benchmark END
    LEFT JOIN round_orders AS ro ON ro.round = r.round
)
SELECT
    * EXCLUDE (resolved_benchmark, folder, is_run_folder),
    CASE WHEN NOT is_run_folder THEN NULL
         WHEN folder LIKE '%/performance/run_1' THEN folder
         ELSE folder || '/performance/run_1' END AS run_path,
    CASE WHEN is_run_folder
         THEN split_part(folder, '/', 1) || '/' || split_part(folder, '/', 2) || '/systems/'
              || split_part(folder, '/', 4) || '.json' END AS system_path
FROM identified
