-- What do the loaded files say that the warehouse does not know yet?
-- One row per (round, source, kind, term). kind: 'column' (a field no format lists, from
-- sources.unknown_columns), 'unit', 'scenario', 'division', 'availability', 'suite' (a word outside
-- the schema's vocabulary, ref_vocabulary), 'accelerator' (a published accelerator name that no
-- row of warehouse/identity/reference/accelerators.csv matches, as published; a name of several
-- parts says which part matches none: 'A + B (no row matches "B")'; a variant word no row accepts says
-- what it reads as: 'QUALCOMM Cloud AI 100 PCIe/HHHL Max (reads as Cloud AI 100 Pro; no row takes
-- "Max")', variant_markers.csv), 'processor' (the published
-- processor of a CPU-only system that no pattern of processors.csv matches) or 'benchmark' (a
-- published model name that no alias of benchmarks.csv matches; an open-division row's own model is
-- not drift: the rules let it run another model, mobilenet-v1-0.25-128 for image classification, which
-- names no benchmark and takes part in no comparison) or 'power_statement' (a power cap, TGP or
-- TDP an entry mentions with no figure that could be read: the words around it, stg_results) or
-- 'nameplate_power' (a design_power_watts a table states that is not a positive number of watts, as
-- published: 'design_power_watts "n/a"'; "None" and an empty value are the checker's "no power
-- submission" and no drift, stg_nameplate_power).
-- rows: how many loaded rows carry the term.
-- 'run folder': a run folder of the submission trees (`mlperf-wh trees` from a directory) that holds
-- none of the files a run summary is read from (LoadGen's mlperf_log_summary.txt, the endpoint
-- harness's result_summary.json, results.json, report.txt): source_id 'tree/' + round + '/' + the
-- folder, term the folder and the files its scenario folder holds (stg_tree_files.files_held), rows
-- the result rows that name it.
-- Your own measurements (round null, source_id 'own/' + the 12 hex digits their run ids begin with):
-- 'accelerator' (a name you gave that no pattern of accelerators.csv matches) and 'model' (a model id
-- no pattern of model_ids.csv matches); those runs are loaded and compared with nothing.
-- Drift is not failure: those rows are in `results`. Rows whose unit has no known direction
-- (higher_is_better null) or whose accelerator is unmatched stay out of the comparison views.
-- Resolved at query time (stg_results), so editing a reference CSV clears its entries without a refetch.
WITH r AS (
    SELECT round, source_id, published_units AS units, scenario, division, availability, suite, accelerator_raw,
           accelerator, processor, cpu, model, used_model, benchmark_matched, extra, power_statement_unread,
           run_path, metric
    FROM stg_results
),
terms AS (
    SELECT round, source_id, 'unit' AS kind, units AS term FROM r WHERE units IS NOT NULL
    UNION ALL SELECT round, source_id, 'scenario', scenario FROM r
    UNION ALL SELECT round, source_id, 'division', division FROM r WHERE division IS NOT NULL
    UNION ALL SELECT round, source_id, 'availability', availability FROM r WHERE availability IS NOT NULL
    UNION ALL SELECT round, source_id, 'suite', unnest(string_split(suite, ',')) FROM r WHERE suite IS NOT NULL
),
new_words AS (
    SELECT round, source_id, kind, term, count(*) AS rows
    FROM terms
    WHERE NOT EXISTS (SELECT 1 FROM stg_vocabulary AS v WHERE v.kind = terms.kind AND v.term = terms.term)
    GROUP BY ALL
),
unmatched_accelerators AS (
    SELECT r.round, r.source_id, 'accelerator' AS kind,
           r.accelerator_raw || coalesce(' (no row matches "' || n.unmatched_part || '")', '')
               || coalesce(' (' || n.unknown_variant || ')', '') AS term,
           count(*) AS rows
    FROM r LEFT JOIN stg_accelerator_names AS n USING (accelerator_raw)
    WHERE r.accelerator_raw IS NOT NULL AND r.accelerator IS NULL
    GROUP BY ALL
),
unmatched_processors AS (
    SELECT round, source_id, 'processor' AS kind, processor AS term, count(*) AS rows
    FROM r WHERE accelerator_raw IS NULL AND processor IS NOT NULL AND cpu IS NULL
    GROUP BY ALL
),
unmatched_benchmarks AS (
    SELECT round, source_id, 'benchmark' AS kind,
           CASE WHEN lower(trim(model)) IN (SELECT alias_key FROM stg_benchmarks)
                THEN used_model ELSE model END AS term,
           count(*) AS rows
    FROM r WHERE NOT benchmark_matched AND coalesce(division, '') <> 'open'
    GROUP BY ALL
),
unread_power AS (
    SELECT round, source_id, 'power_statement' AS kind, power_statement_unread AS term, count(*) AS rows
    FROM r WHERE power_statement_unread IS NOT NULL
    GROUP BY ALL
),
unread_nameplate AS (
    SELECT round, source_id, 'nameplate_power' AS kind,
           format('design_power_watts "{}"', design_power_published) AS term, count(*) AS rows
    FROM stg_nameplate_power WHERE nameplate_watts IS NULL
    GROUP BY ALL
),
new_columns AS (
    SELECT s.round, s.source_id, 'column' AS kind, c.term,
           (SELECT count(*) FROM r WHERE r.source_id = s.source_id
              AND json_exists(r.extra, '$."' || replace(c.term, '"', '\"') || '"')) AS rows
    FROM stg_sources AS s, unnest(s.unknown_columns) AS c(term)
),
unrecognized_run_folders AS (
    SELECT f.round, 'tree/' || f.round || '/' || f.run_path AS source_id, 'run folder' AS kind,
           f.run_path || ': ' || array_to_string(f.files_held, ', ') AS term,
           (SELECT count(*) FROM r AS x WHERE x.round = f.round AND x.run_path = f.run_path
                                                AND x.metric = 'performance') AS rows
    FROM stg_tree_files AS f
    WHERE f.status = 'unrecognized'
),
own_unmatched AS (
    SELECT NULL AS round, 'own/' || left(file_sha256, 12) AS source_id, 'accelerator' AS kind,
           accelerator_raw AS term, count(*) AS rows
    FROM stg_own_measurements WHERE accelerator IS NULL
    GROUP BY ALL
    UNION ALL
    SELECT NULL, 'own/' || left(file_sha256, 12), 'model', model_id, count(*)
    FROM stg_own_measurements WHERE family IS NULL
    GROUP BY ALL
)
SELECT * FROM new_words
UNION ALL SELECT * FROM unmatched_accelerators
UNION ALL SELECT * FROM unmatched_processors
UNION ALL SELECT * FROM unmatched_benchmarks
UNION ALL SELECT * FROM unread_power
UNION ALL SELECT * FROM unread_nameplate
UNION ALL SELECT * FROM new_columns
UNION ALL SELECT * FROM unrecognized_run_folders
UNION ALL SELECT * FROM own_unmatched
ORDER BY round NULLS LAST, source_id, kind, term
