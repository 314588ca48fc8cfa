-- One row per canonical processor of CPU-only systems with its vendor, family, product line,
-- segment, predecessor and the source that states it. Source: ref_processors
-- (warehouse/identity/reference/processors.csv).
SELECT DISTINCT processor AS cpu, vendor, family, line, segment, predecessor, source
FROM ref_processors
