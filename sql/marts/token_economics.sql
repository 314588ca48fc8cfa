-- What does each throughput result give per accelerator, per rack, per kW and per dollar-hour, in tokens
-- where they are known and in the benchmark's own unit everywhere?
-- One row per throughput result whose unit is not suspect: tokens where they can be derived, the
-- benchmark's own unit always; per rack with how the rack was measured (rack_basis); power on three
-- bases in columns of their own, never mixed (measured, a cited system estimate, the accelerators
-- alone). Every definition: the header of sql/intermediate/int_token_economics.sql.
-- mixed_cluster: several accelerator models in one system ('MI300X + MI325X'): a figure per
-- accelerator belongs to no one model.
SELECT * EXCLUDE (source_id, record_no) RENAME (total_accelerators AS accelerator_count),
       coalesce(accelerator LIKE '% + %', false) AS mixed_cluster
FROM int_token_economics
