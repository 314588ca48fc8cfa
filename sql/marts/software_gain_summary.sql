-- What is the "up to" software gain of each submitter's hardware on each benchmark between two rounds?
-- Per submitter, part (accelerator, or cpu for a CPU-only system), benchmark, basis and round pair: the largest gain across scenarios (and,
-- for same_scale, across system sizes), with the scenario, scale and result ids of that one
-- comparison, and whether it changed the system size (scale_changed) or may be trusted as a
-- software-only gain (procurement_grade), and whether one submitter's same system, host and size ran
-- both sides (software_alone; not_software_only_because says what changed, int_software_gains_graded).
-- Verified rows only (int_software_gains_graded: gain = value_to /
-- value_from for throughput, value_from / value_to for latency).
WITH best AS (
    SELECT
        submitter, hardware, hardware_kind, accelerator, cpu, benchmark, basis, round_from, round_to,
        arg_max({'gain': gain, 'scenario': scenario, 'total_accelerators': total_accelerators_to,
                 'scale_from': scale_from, 'scale_to': scale_to, 'scale_changed': scale_changed,
                 'procurement_grade': procurement_grade, 'rounds_spanned': rounds_spanned,
                 'software_alone': software_alone, 'not_software_only_because': not_software_only_because,
                 'result_id_from': result_id_from, 'result_id_to': result_id_to}, gain) AS top,
        count(*) AS comparisons
    FROM int_software_gains_graded
    GROUP BY submitter, hardware, hardware_kind, accelerator, cpu, benchmark, basis, round_from, round_to
)
SELECT
    submitter, hardware_kind, accelerator, cpu, benchmark, basis, round_from, round_to,
    top.gain AS gain, top.scenario AS scenario, top.total_accelerators AS accelerator_count,
    top.scale_from AS scale_from, top.scale_to AS scale_to, top.scale_changed AS scale_changed,
    top.procurement_grade AS procurement_grade, top.software_alone AS software_alone,
    top.not_software_only_because AS not_software_only_because, top.rounds_spanned AS rounds_spanned,
    top.result_id_from AS result_id_from, top.result_id_to AS result_id_to, comparisons
FROM best
