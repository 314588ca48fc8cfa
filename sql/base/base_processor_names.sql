-- The canonical processor of every distinct published processor name of a CPU-only system (a row
-- that names no accelerator): the processor of the first pattern of ref_processors (file order) that
-- the name matches (the macro processor_of, written from warehouse/identity/reference/processors.csv
-- at each materialize). Null when no pattern matches (`mlperf-wh drift` lists those names). The host
-- processors of accelerator systems are not resolved: they are not what such a result measures.
SELECT processor, processor_of(processor) AS cpu
FROM (SELECT DISTINCT processor FROM results WHERE accelerator_raw IS NULL AND processor IS NOT NULL)
