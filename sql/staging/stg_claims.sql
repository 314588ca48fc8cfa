-- Which vendor claims has the user loaded (`mlperf-wh claims load`)?
-- One row per claim, as its claims file states it: kind, direction, stage, round(s), accelerators,
-- scale, multiplier and the result ids it cites (the table `claims`).
SELECT * FROM claims
