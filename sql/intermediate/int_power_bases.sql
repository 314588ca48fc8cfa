-- What power stands behind each throughput result, on each basis, never mixed?
-- One row per performance row (source_id, record_no) of a throughput unit. Three bases, each its own
-- column, each null when it cannot be stated:
--   measured_watts: the entry's own MLPerf power result for the same benchmark and scenario (units
--     Watts: the average wall power of the whole system under test during the run).
--   system_estimate_watts: a whole system (or rack) of a cited reference (stg_system_power: e.g. a
--     DGX B200 at 14.3 kW, a GB200 NVL72 rack at 120 kW; what it includes is in power_reference),
--     scaled to the entry's accelerator count: (watts_per_accelerator + adjustment) x
--     total_accelerators, where the adjustment is the entry's published board power minus the
--     accelerator's TDP (a power cap below the TDP lowers it; the H200 CTS at 1000 W raises it).
--   accelerators_only_watts: the accelerators' own board power x total_accelerators, as the entry
--     states it (accelerator_power_basis 'power cap' or 'TGP': a cap published in the system
--     description wins over the TDP), else the TDP of accelerators.csv ('TDP'); hosts, memory,
--     network and cooling left out.
-- CPU-only systems and mixed or unmatched accelerators have no estimate.
WITH throughput AS (
    SELECT * FROM stg_results WHERE metric = 'performance' AND higher_is_better
),
measured AS (
    SELECT source_id, entry_id, model, used_model, scenario, value AS watts
    FROM stg_results
    WHERE metric = 'power' AND published_units = 'Watts'
)
SELECT
    t.source_id, t.record_no,
    m.watts AS measured_watts,
    p.system AS power_reference,
    p.watts_per_accelerator AS reference_watts_per_accelerator,
    (p.watts_per_accelerator + coalesce(t.published_accelerator_watts - t.tdp_watts, 0)) * t.total_accelerators
        AS system_estimate_watts,
    coalesce(t.published_accelerator_watts, t.tdp_watts) * t.total_accelerators AS accelerators_only_watts,
    CASE WHEN t.published_accelerator_watts IS NOT NULL THEN t.accelerator_power_stated_as
         WHEN t.tdp_watts IS NOT NULL THEN 'TDP' END AS accelerator_power_basis
FROM throughput AS t
LEFT JOIN measured AS m
  ON  m.source_id = t.source_id AND m.entry_id = t.entry_id AND m.model = t.model
  AND m.used_model IS NOT DISTINCT FROM t.used_model AND m.scenario = t.scenario
LEFT JOIN stg_system_power AS p ON p.accelerator = t.accelerator
