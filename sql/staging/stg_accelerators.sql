-- One row per canonical accelerator (the part as sold: its variant) with the product it rolls up to
-- ('A100' for every A100), its vendor, family, generation order, memory, design power, segment, form
-- factor, product line and predecessor.
-- Source: ref_accelerators (warehouse/identity/reference/accelerators.csv); several alias patterns may name one
-- accelerator, their attributes agree (the reference schema checks it).
SELECT DISTINCT accelerator, product, vendor, family, generation, memory_gb, tdp_watts, tdp_source,
       segment, form_factor, line, predecessor
FROM ref_accelerators
