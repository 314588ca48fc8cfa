-- Which processors of CPU-only systems does the warehouse know, and what are they?
-- One row per canonical processor (stg_processors: warehouse/identity/reference/processors.csv) with
-- its vendor, family, product line, segment, predecessor and source, and how many performance rows of
-- CPU-only systems name it (result_rows, of any verification; verified_rows).
WITH counted AS (
    SELECT cpu, count(*) AS result_rows, count(*) FILTER (WHERE verification = 'verified') AS verified_rows
    FROM stg_results
    WHERE metric = 'performance' AND cpu IS NOT NULL
    GROUP BY cpu
)
SELECT p.cpu, p.vendor, p.family, p.line, p.segment, p.predecessor, p.source,
       coalesce(c.result_rows, 0) AS result_rows, coalesce(c.verified_rows, 0) AS verified_rows
FROM stg_processors AS p
LEFT JOIN counted AS c USING (cpu)
