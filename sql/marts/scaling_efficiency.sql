-- How close to linear does throughput grow when the same submitter runs more of the same accelerator
-- on the same benchmark and throughput scenario in one round?
-- efficiency = (throughput_large / throughput_small) / (accelerator_count_large / accelerator_count_small);
-- 1.0 is linear.
-- Each size is that submitter's best verified-or-preview result at that size; superlinear
-- (efficiency above 1.05) is an anomaly of the pair; procurement_grade is true only when both sides are
-- verified, without findings, and not superlinear (int_scaling_pairs).
SELECT * RENAME (units AS throughput_unit, accelerators_small AS accelerator_count_small,
                 accelerators_large AS accelerator_count_large, value_small AS throughput_small,
                 value_large AS throughput_large)
FROM int_scaling_pairs
