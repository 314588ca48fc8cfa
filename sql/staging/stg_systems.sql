-- What does each submitter's system description say (`mlperf-wh trees`)?
-- One row per (round, system_path): systems/<platform>.json of the submission tree, typed fields
-- (host, memory, interconnect, cooling, software) next to the raw JSON.
SELECT * FROM systems
