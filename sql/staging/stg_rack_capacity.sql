-- How many accelerators does one rack hold, by the stated assumption?
-- One row per accelerator of warehouse/identity/reference/rack_capacity.csv (the ref_rack_capacity seed):
-- accelerators_per_rack and the assumption behind it.
SELECT * FROM ref_rack_capacity
