-- How much work did each result do per joule of measured system power, and which row is each hardware's
-- best per joule in its round?
-- One row per performance row with a measured power figure (stg_measured_power: a published table's
-- power row, or a figure read from the round's tree as the checker reads it); basis 'measured system
-- power' only: an estimate never enters this model.
-- work_unit: what one unit of work is: 'tokens' for a result in Tokens/s, else 'samples' (Samples/s,
--   Queries/s: a Server query is one sample; SingleStream and MultiStream count samples).
-- work_per_joule (higher is better), by the scenario's power figure:
--   Offline, Server, Interactive (Watts): the result / measured_watts (a rate per watt is work per
--     joule): tokens per joule for Tokens/s, samples per joule for Samples/s or Queries/s;
--   SingleStream, MultiStream (energy per query): samples_per_query / joules_per_query.
-- samples_per_joule, tokens_per_joule: the same in each unit where it is known (tokens_per_joule from
--   stg_results.tokens_per_second for a rate; null for an energy figure). joules_per_sample =
--   1 / samples_per_joule.
-- watts_per_accelerator: measured_watts / accelerators, the host's share included (a system figure spread
--   over its accelerators, never a board's power); null for a CPU-only system.
-- power_setting: 'MaxQ' for a power-optimized entry (its system folder ends '_MaxQ', or the system's name
--   says 'MaxQ', as NVIDIA labels one: 'NVIDIA DGX A100 (8x A100-SXM-80GB, MaxQ, TensorRT)'), else 'MaxP'
--   (a performance entry measured at the wall). The same system's two entries are two series: a
--   comparison or a best never crosses them.
-- era, measures (int_figure_eras): what the performance figure measured; a history compares within one.
-- segment, form_factor: the part's (stg_hardware; the device's for a partition or a virtualized part).
-- best_of_hardware: the best verified row per joule of its (round, hardware, hardware count,
--   accelerators, power setting, benchmark, scenario, work unit), whoever submitted it: among the usable
--   rows first (the one eligibility rule, int_result_eligibility), then the most work per joule, then the
--   lowest result id, entry and key; only when no row is usable is the best of the others taken, and
--   then it is not procurement grade (docs/definitions.md sections 1d and 16).
-- usable, procurement_grade, findings: int_result_eligibility's, for the performance row.
WITH rows AS (
    SELECT
        r.round, r.round_order, r.submitter, r.system, r.platform, r.result_id, r.entry_id, r.source_id,
        r.record_no, r.run_path, r.hardware, r.hardware_kind, r.hardware_count, r.accelerator, r.cpu,
        r.total_accelerators, r.partition,
        CASE WHEN r.partition IS NOT NULL THEN r.hardware_count END AS partition_instances,
        r.benchmark, r.scenario, r.units, r.value, r.tokens_per_second, r.unit_verdict, r.verification,
        r.software, r.stack,
        m.power_basis, m.measured_from, m.power_result, m.power_unit, m.measured_watts, m.joules_per_query,
        m.samples_per_query, m.power_samples, m.power_window_s, m.power_rule, m.spl_path, m.detail_path,
        CASE WHEN regexp_matches(r.platform, '(?i)(^|[_-])maxq($|[_-])')
                  OR regexp_matches(coalesce(r.system, ''), '(?i)\bmaxq\b') THEN 'MaxQ' ELSE 'MaxP' END AS power_setting,
        h.segment, h.form_factor
    FROM stg_measured_power AS m
    JOIN stg_results AS r ON r.source_id = m.source_id AND r.record_no = m.record_no AND r.metric = 'performance'
    LEFT JOIN stg_hardware AS h
      ON h.hardware = coalesce(r.device, r.cpu) AND h.hardware_kind = coalesce(r.hardware_kind, 'accelerator')
),
per_joule AS (
    SELECT *,
        CASE WHEN units = 'Tokens/s' THEN 'tokens' ELSE 'samples' END AS work_unit,
        CASE WHEN power_unit = 'Watts' AND units IN ('Samples/s', 'Queries/s') THEN value / measured_watts
             WHEN power_unit <> 'Watts' THEN samples_per_query / joules_per_query END AS samples_per_joule,
        CASE WHEN power_unit = 'Watts' THEN tokens_per_second / measured_watts END AS tokens_per_joule
    FROM rows
    -- a rate in another unit (Tasks/s) has no work per joule of a kind the marts compare
    WHERE power_unit <> 'Watts' OR units IN ('Samples/s', 'Queries/s', 'Tokens/s')
),
graded AS (
    SELECT p.*,
        CASE p.work_unit WHEN 'tokens' THEN p.tokens_per_joule ELSE p.samples_per_joule END AS work_per_joule,
        1 / p.samples_per_joule AS joules_per_sample,
        CASE WHEN p.hardware_kind = 'accelerator' AND p.total_accelerators > 0
             THEN p.measured_watts / p.total_accelerators END AS watts_per_accelerator,
        e.era, e.measures, e.era_began_because,
        g.comparable, g.usable, g.procurement_grade, g.findings, g.excluded_because, g.questioned_because
    FROM per_joule AS p
    JOIN int_result_eligibility AS g ON g.source_id = p.source_id AND g.record_no = p.record_no
    LEFT JOIN int_figure_eras AS e ON e.round = p.round AND e.benchmark = p.benchmark AND e.scenario = p.scenario
),
best AS (
    SELECT arg_min({'s': source_id, 'r': record_no},
                   {'u': NOT usable, 'v': -work_per_joule, 'n': result_id IS NULL, 'id': coalesce(result_id, ''),
                    'e': entry_id, 's': source_id, 'r': record_no}) AS row_key
    FROM graded
    WHERE verification = 'verified' AND comparable AND hardware IS NOT NULL AND hardware_count IS NOT NULL AND work_per_joule IS NOT NULL
    GROUP BY round, hardware, hardware_count, total_accelerators, power_setting, benchmark, scenario, work_unit
)
SELECT g.*, b.row_key IS NOT NULL AS best_of_hardware
FROM graded AS g
LEFT JOIN best AS b ON b.row_key = {'s': g.source_id, 'r': g.record_no}
