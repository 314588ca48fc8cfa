-- What was each benchmark called, and what did its result measure, round by round?
-- One row per row of warehouse/identity/reference/benchmark_eras.csv (the ref_benchmark_eras seed): an
-- era of a benchmark (or '*': every benchmark) in a scenario (or '*': every scenario) from round_from,
-- the names it was published under, what it measured, and whether it compares with the era before
-- (comparable_with_previous; why says what changed). round_order sorts round_from.
SELECT *, round_order(round_from) AS round_order FROM ref_benchmark_eras
