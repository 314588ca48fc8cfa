-- Which performance rows belong to the result entries that claims cite?
-- Every performance row (stg_results) whose result_id appears in some claim's cited_result_ids (all
-- its benchmarks and scenarios); a small table the claim audit reads instead of every result.
SELECT *
FROM stg_results
WHERE metric = 'performance' AND result_id IN (SELECT unnest(cited_result_ids) FROM stg_claims)
