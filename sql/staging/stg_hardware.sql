-- What is each part a result can be measured on: an accelerator, or the processor of a CPU-only system?
-- One row per canonical accelerator (ref_accelerators) and per canonical processor (ref_processors):
-- hardware (its canonical name), hardware_kind ('accelerator' | 'cpu'), vendor, family, generation
-- (accelerators: order within the vendor), segment, form_factor ('CPU' for a processor), product
-- line and predecessor.
SELECT DISTINCT accelerator AS hardware, 'accelerator' AS hardware_kind, vendor, family, generation, segment,
       form_factor, line, predecessor
FROM ref_accelerators
UNION ALL
SELECT DISTINCT processor, 'cpu', vendor, family, NULL::BIGINT, segment, 'CPU', line, predecessor
FROM ref_processors
