-- Which run folder and system description of the submission tree stand behind each performance result?
-- One row per performance result (every column of stg_performance) with run_path, the run folder:
--   the published Location without a leading './' or trailing '/', with '/performance/run_1' appended
--   when the round left it out (as warehouse/trees.py run_folder does), and system_path,
--   '<division>/<submitter>/systems/<platform>.json' from the same folder's parts. Both are null
--   when the row names no folder of that shape (no Location, as in rows loaded before it was kept).
WITH located AS (
    SELECT p.*, trim(regexp_replace(trim(p.location), '^\./', ''), '/') AS folder
    FROM stg_performance AS p
),
shaped AS (
    SELECT *, split_part(folder, '/', 3) = 'results' AND len(string_split(folder, '/')) >= 6 AS is_run_folder
    FROM located
)
SELECT
    * EXCLUDE (folder, is_run_folder),
    CASE WHEN NOT is_run_folder THEN NULL
         WHEN folder LIKE '%/performance/run_1' THEN folder
         ELSE folder || '/performance/run_1' END AS run_path,
    CASE WHEN is_run_folder
         THEN split_part(folder, '/', 1) || '/' || split_part(folder, '/', 2) || '/systems/'
              || split_part(folder, '/', 4) || '.json' END AS system_path
FROM shaped
