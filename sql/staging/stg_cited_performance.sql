-- Which performance rows belong to the result entries that claims cite?
-- Every stg_performance row whose result_id appears in some claim's cited_result_ids (all its
-- benchmarks and scenarios); a small table the claim audit reads instead of every result.
-- materialized: table
SELECT *
FROM stg_performance
WHERE result_id IN (SELECT unnest(cited_result_ids) FROM claims)
