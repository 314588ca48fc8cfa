-- Which run folder and system description of the submission tree stand behind each performance result?
-- One row per performance result (every column of stg_performance) with run_path, the run folder:
--   the published Location without a leading './' or trailing '/', with '/performance/run_1' appended
--   when the round left it out (as warehouse/trees.py run_folder does), and system_path,
--   '<division>/<submitter>/systems/<platform>.json' from the same folder's parts. Both are null
--   when the row names no folder of that shape (no Location, as in rows loaded before it was kept).
-- The location is read from results by the row's key (source, entry, model, used model, scenario).
WITH folders AS (
    SELECT source_id, entry_id, model, used_model, scenario,
           trim(regexp_replace(trim(location), '^\./', ''), '/') AS folder
    FROM results
    WHERE metric = 'performance'
),
runs AS (
    SELECT source_id, entry_id, model, used_model, scenario,
           CASE WHEN folder LIKE '%/performance/run_1' THEN folder
                ELSE folder || '/performance/run_1' END AS run_path,
           split_part(folder, '/', 1) || '/' || split_part(folder, '/', 2) || '/systems/'
               || split_part(folder, '/', 4) || '.json' AS system_path
    FROM folders
    WHERE split_part(folder, '/', 3) = 'results' AND len(string_split(folder, '/')) >= 6
)
SELECT p.*, runs.run_path, runs.system_path
FROM stg_performance AS p
LEFT JOIN runs
  ON  runs.source_id = p.source_id AND runs.entry_id = p.entry_id AND runs.model = p.model
  AND runs.used_model IS NOT DISTINCT FROM p.used_model AND runs.scenario = p.scenario
