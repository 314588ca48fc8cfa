-- Which MLPerf Inference rounds are loaded, from which files, and how many of their results are verified?
-- One row per round with performance rows; round_order sorts rounds numerically (v10.0 after v9.1).
-- sources: the source_id of every load of the round (the lineage table `sources`); loaded_at is the
-- latest of those loads. verified_share = verified_rows / result_rows (0..1).
WITH performance AS (
    SELECT round, any_value(round_order) AS round_order, count(*) AS result_rows,
           count(*) FILTER (WHERE verification = 'verified') AS verified_rows,
           count(*) FILTER (WHERE verification = 'preview') AS preview_rows,
           count(DISTINCT submitter) AS submitters
    FROM stg_results
    WHERE metric = 'performance'
    GROUP BY round
),
loads AS (
    SELECT round, list(source_id ORDER BY source_id) AS sources, max(loaded_at) AS loaded_at
    FROM stg_sources
    GROUP BY round
)
SELECT
    p.round, p.round_order, p.result_rows, p.verified_rows, p.preview_rows,
    p.verified_rows / p.result_rows AS verified_share, p.submitters,
    coalesce(l.sources, []) AS sources, l.loaded_at
FROM performance AS p
LEFT JOIN loads AS l USING (round)
