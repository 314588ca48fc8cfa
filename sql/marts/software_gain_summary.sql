-- What is the "up to" software gain of each submitter's hardware on each benchmark between two rounds?
-- Per submitter, accelerator, benchmark, basis and round pair: the largest gain across scenarios (and,
-- for same_scale, across system sizes), with the scenario and scale it came from. Verified rows only.
SELECT
    submitter, accelerator, benchmark, basis, round_from, round_to,
    max(gain) AS gain,
    arg_max(scenario, gain) AS scenario,
    arg_max(total_accelerators_to, gain) AS total_accelerators,
    arg_max(result_id_from, gain) AS result_id_from,
    arg_max(result_id_to, gain) AS result_id_to,
    count(*) AS comparisons
FROM software_gains
GROUP BY submitter, accelerator, benchmark, basis, round_from, round_to
