-- How many accelerators does one rack hold, by the stated assumption token_economics uses, and what
-- power does such a rack draw?
-- One row per accelerator of warehouse/identity/reference/rack_capacity.csv (stg_rack_capacity), with
-- the accelerator's vendor and design power; rack_kw_system_estimate = the cited whole-system power
-- per accelerator (stg_system_power) x accelerators_per_rack / 1000, with power_reference naming the
-- system it scales; rack_tdp_watts = tdp_watts x accelerators_per_rack (the accelerators alone: hosts,
-- network and cooling left out).
SELECT
    r.accelerator, a.vendor, r.accelerators_per_rack, r.assumption,
    a.tdp_watts, a.tdp_watts * r.accelerators_per_rack AS rack_tdp_watts,
    p.watts_per_accelerator * r.accelerators_per_rack / 1000 AS rack_kw_system_estimate,
    p.system AS power_reference
FROM stg_rack_capacity AS r
LEFT JOIN stg_accelerators AS a USING (accelerator)
LEFT JOIN stg_system_power AS p USING (accelerator)
