-- The serving stack family of every distinct published software string in `results`.
-- stack: the stack of the first pattern of software_stacks.csv (file order) the string matches
--   (TensorRT, vLLM, SGLang...); null when none does.
-- Resolved once per distinct string, not once per row: seventeen regular expressions a row cost a
-- full scan of stg_results 0.4 s on a million rows (bench/views_bench.py).
SELECT software, stack_of(software) AS stack
FROM (SELECT DISTINCT software FROM results)
