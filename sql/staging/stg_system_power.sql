-- What power does a whole system or rack built around each accelerator draw, by a cited source?
-- One row per accelerator of warehouse/identity/reference/system_power.csv (ref_system_power): the
-- system, its accelerator count, its power in watts, what the figure includes, the source and the day
-- it was read; watts_per_accelerator = system_watts / accelerators_per_system.
SELECT *, system_watts / accelerators_per_system AS watts_per_accelerator FROM ref_system_power
