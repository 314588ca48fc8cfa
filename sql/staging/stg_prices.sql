-- What does one accelerator-hour cost, by the prices the user loaded (`mlperf-wh prices load`)?
-- One row per accelerator: dollars_per_accelerator_hour (> 0) and the user's note.
SELECT * FROM prices
