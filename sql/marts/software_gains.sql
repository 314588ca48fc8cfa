-- How much faster did the same hardware get on the same benchmark and scenario from one round to the
-- previous round in which it submitted that benchmark? (verified rows on both sides)
-- basis 'same_scale': same submitter, accelerator and total accelerators; gain = value_to / value_from
--   for throughput, value_from / value_to for latency.
-- basis 'per_accelerator': same submitter and accelerator at any scale, throughput / total
--   accelerators; gain = value_to / value_from.
-- Definition (each side the best verified result of its key in its round): int_software_gains.
SELECT * FROM int_software_gains
