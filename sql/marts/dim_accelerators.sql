-- Which accelerators does the warehouse know, and what are they?
-- One row per canonical accelerator (stg_accelerators: the part as sold, its variant), the product
-- its variants roll up to (product: 'A100' for A100 PCIe 40GB ... A100 SXM 80GB 500W), its vendor,
-- family, generation order
-- (newer is larger, within one vendor), memory, design power and where it is stated, segment, form
-- factor, product line and predecessor (the part of the line it succeeds), and how many performance
-- rows name it. result_rows = performance rows of any verification that resolve to this accelerator.
WITH counted AS (
    SELECT accelerator, count(*) AS result_rows,
           count(*) FILTER (WHERE verification = 'verified') AS verified_rows
    FROM stg_results
    WHERE metric = 'performance' AND accelerator IS NOT NULL
    GROUP BY accelerator
)
SELECT
    a.accelerator, a.product, a.vendor, a.family, a.generation, a.memory_gb, a.tdp_watts, a.tdp_source,
    a.segment, a.form_factor, a.line, a.predecessor,
    coalesce(c.result_rows, 0) AS result_rows,
    coalesce(c.verified_rows, 0) AS verified_rows
FROM stg_accelerators AS a
LEFT JOIN counted AS c ON c.accelerator = a.accelerator
