-- What latency must a Server or Interactive run of an LLM benchmark keep?
-- One row per (benchmark, scenario) of warehouse/identity/reference/scenario_constraints.csv (the
-- ref_scenario_constraints seed, from LoadGen's mlperf.conf): the 99th-percentile time to first token
-- and time per output token, ms. Offline has none.
SELECT * FROM ref_scenario_constraints
