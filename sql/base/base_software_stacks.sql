-- The serving stack family of every distinct published software string in `results`.
-- stack: the first-named engine of the string (software_stacks.csv, role 'engine': the pattern whose
--   match starts earliest; file order breaks a tie), else its first-named framework (PyTorch,
--   TensorFlow, JAX); null when no pattern matches. "TRTLLM-rubin, vLLM-CentML..., Dynamo" is TensorRT,
--   "PyTorch 2.7.0, vLLM 0.9" is vLLM.
-- Resolved once per distinct string, not once per row (bench/views_bench.py): a few hundred strings
-- x the patterns.
WITH strings AS (
    SELECT DISTINCT software FROM results WHERE software IS NOT NULL
),
found AS (
    SELECT s.software, p.stack, p.role, p.priority,
           strpos(s.software, regexp_extract(s.software, p.pattern)) AS position
    FROM strings AS s
    JOIN ref_software_stacks AS p ON regexp_matches(s.software, p.pattern)
)
SELECT s.software, arg_min(f.stack, [CASE f.role WHEN 'engine' THEN 0 ELSE 1 END, f.position, f.priority]) AS stack
FROM strings AS s
LEFT JOIN found AS f USING (software)
GROUP BY s.software
