-- One row per canonical accelerator with its vendor, family, generation order, memory and design power.
-- Source: ref_accelerators (warehouse/identity/reference/accelerators.csv); several alias patterns may name one
-- accelerator, their attributes agree (the reference schema checks it).
SELECT DISTINCT accelerator, vendor, family, generation, memory_gb, tdp_watts
FROM ref_accelerators
