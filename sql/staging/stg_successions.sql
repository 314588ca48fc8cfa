-- Which parts does each accelerator or processor succeed, and by how many steps?
-- One row per (hardware, ancestor): the predecessor chain of ref_accelerators and ref_processors
-- (warehouse/identity/reference/accelerators.csv, processors.csv) followed to its start, e.g. B300 ->
-- B200 (1 step) -> H200 SXM (2) -> H100 SXM (3). A predecessor is in the same product line (the
-- reference schema checks it); segment and form factor may still differ, and the comparison marts
-- compare only parts of the same segment and form factor.
WITH RECURSIVE parts AS (
    SELECT DISTINCT accelerator AS hardware, predecessor FROM ref_accelerators
    UNION
    SELECT DISTINCT processor, predecessor FROM ref_processors
),
chain(hardware, ancestor, steps) AS (
    SELECT hardware, predecessor, 1 FROM parts WHERE predecessor IS NOT NULL
    UNION ALL
    SELECT c.hardware, p.predecessor, c.steps + 1
    FROM chain AS c
    JOIN parts AS p ON p.hardware = c.ancestor
    WHERE p.predecessor IS NOT NULL
)
SELECT hardware, ancestor, steps FROM chain
