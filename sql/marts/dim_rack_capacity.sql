-- How many accelerators does one rack hold, by the stated assumption token_economics uses?
-- One row per accelerator of warehouse/identity/reference/rack_capacity.csv (stg_rack_capacity), with
-- the accelerator's vendor and design power; rack_tdp_watts = tdp_watts x accelerators_per_rack
-- (accelerators only: hosts, network and cooling are left out).
SELECT
    r.accelerator, a.vendor, r.accelerators_per_rack, r.assumption,
    a.tdp_watts, a.tdp_watts * r.accelerators_per_rack AS rack_tdp_watts
FROM stg_rack_capacity AS r
LEFT JOIN stg_accelerators AS a USING (accelerator)
