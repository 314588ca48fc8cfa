-- How much faster did the same hardware get on the same benchmark and scenario from one round to the
-- previous round in which it submitted that benchmark? (verified rows on both sides)
-- The part compared: accelerator or, for a CPU-only system, its processor cpu (Xeon and EPYC parts
-- compare too; hardware_kind says which).
-- basis 'same_scale': same submitter, hardware and hardware count; gain = value_to / value_from for
--   throughput, value_from / value_to for latency. The "software alone" figure: procurement grade.
-- basis 'per_accelerator': same submitter and accelerator at any scale, throughput / total
--   accelerators; gain = value_to / value_from. scale_changed when the sizes differ (a 4-GPU tray one
--   round, a 72-GPU rack the next): the gain mixes software with scale, never procurement grade.
-- basis 'hardware_best': the best verified result of the hardware at a size against the best of the
--   previous round at that size, whoever submitted either, each the row the leaderboard ranks first
--   among them by the one eligibility rule (int_hardware_gains): what the hardware gained (the headline).
-- software_alone: one submitter's same system, host and size on both sides (system_changed,
--   host_changed say what moved); hardware_kind 'cpu' marks a CPU-only system's gain.
-- not_software_only_because: why a pair is not software alone, in words: what changed, then each
--   change's two sides ('submitter changed, system changed, host changed: NVIDIA -> Nebius; ...',
--   'system size changed: 4 -> 72 accelerators'); null when software_alone (int_software_gains_graded).
-- rounds_spanned: rounds between the two that the warehouse knows of but has not loaded.
-- procurement_grade: the pair's own conditions (same scale, not implausible) and both sides procurement
--   grade by the one eligibility rule (int_result_eligibility, each side by its row, a row rebuilt from
--   a submission tree as any other).
-- Definition (each side the best verified result of its key in its round): int_software_gains,
-- int_hardware_gains.
SELECT * EXCLUDE (hardware, source_id_from, record_no_from, source_id_to, record_no_to, platform_from, platform_to,
                  processor_from, processor_to) RENAME (total_accelerators AS accelerator_count, units AS result_unit, value_from AS result_from,
                 value_to AS result_to, total_accelerators_from AS accelerator_count_from,
                 total_accelerators_to AS accelerator_count_to)
FROM int_software_gains_graded
