-- What did each run draw at the wall, measured with a power analyzer during the run, whichever way the
-- warehouse read it? One basis: 'measured system power' (the whole system under test, at the wall);
-- an estimate (a TDP, a cited system, a nameplate) never appears here.
-- One row per performance row of `results` (its key: source_id, record_no) that a measured power figure
-- of the same run sits beside, from either source:
--   'published table' (v4.1 on): the row of `results` with metric 'power' of the same entry, model, used
--     model and scenario (the table's Power_Result, Power_Units);
--   'submission tree' (rounds rebuilt from their trees): the figure of `power_readings`, computed from
--     the run's spl.txt and detail log as MLCommons' checker computes it, of the same round, source and
--     run folder (results.location of a tree row) and scenario. A quarantined figure has no row.
-- power_result, power_unit: the figure in the checker's words: 'Watts' (Offline, Server, Interactive:
--   the mean wall power during the run), or energy per query, 'Joules' (to v2.1) or 'millijoules' (from
--   v3.0). measured_watts: power_result in Watts; else, for a tree figure, the mean Watts of its window
--   (power_readings.average_watts), null for a table's energy figure.
-- joules_per_query: an energy figure in joules (millijoules / 1000); null for Watts.
-- samples_per_query: the samples one query of that figure holds: 1 for SingleStream; for MultiStream 8
--   from v2.0 (a query of 8 samples, or the checker's x 8 for one inferred from a SingleStream run), and
--   1 before v2.0, where the checker divided the energy by generated_query_count x
--   generated_samples_per_query, the samples (its comment: "the power metric is in J/sample";
--   `uses_legacy_multistream`, docs/definitions.md section 9b). Null for Watts.
-- power_samples, power_window_s, power_rule, spl_path, detail_path: how a tree figure was read (the
--   analyzer samples averaged, the window's seconds, the checker's formula and query count, the two
--   files); null for a table's figure, which publishes none of them.
WITH published AS (
    SELECT perf.source_id, perf.record_no, perf.round, perf.scenario,
           pw.value AS power_result, pw.units AS power_unit, 'published table' AS measured_from,
           CASE WHEN pw.units = 'Watts' THEN pw.value END AS measured_watts,
           NULL::BIGINT AS power_samples, NULL::DOUBLE AS power_window_s, NULL::VARCHAR AS power_rule,
           NULL::VARCHAR AS spl_path, NULL::VARCHAR AS detail_path
    FROM results AS pw
    JOIN results AS perf
      ON  perf.metric = 'performance' AND perf.source_id = pw.source_id AND perf.entry_id = pw.entry_id
      AND perf.model = pw.model AND perf.used_model IS NOT DISTINCT FROM pw.used_model AND perf.scenario = pw.scenario
    WHERE pw.metric = 'power'
),
read_from_trees AS (
    SELECT perf.source_id, perf.record_no, perf.round, perf.scenario,
           pw.value AS power_result, pw.unit AS power_unit, 'submission tree' AS measured_from,
           pw.average_watts AS measured_watts,
           pw.samples AS power_samples, pw.duration_s AS power_window_s, pw.rule AS power_rule,
           pw.spl_path, pw.detail_path
    FROM power_readings AS pw
    JOIN results AS perf
      ON  perf.metric = 'performance' AND perf.round = pw.round AND perf.source_id = pw.source_id
      AND perf.location = pw.run_path AND perf.scenario = pw.scenario
),
both_sources AS (
    FROM published UNION ALL BY NAME FROM read_from_trees
)
SELECT
    source_id, record_no, round, scenario, 'measured system power' AS power_basis, measured_from,
    power_result, power_unit, measured_watts,
    CASE WHEN power_unit = 'Joules' THEN power_result
         WHEN power_unit LIKE 'millijoules%' THEN power_result / 1000 END AS joules_per_query,
    CASE WHEN power_unit = 'Watts' THEN NULL
         WHEN scenario = 'MultiStream' AND round_order(round) >= round_order('v2.0') THEN 8
         ELSE 1 END AS samples_per_query,
    power_samples, power_window_s, power_rule, spl_path, detail_path
FROM both_sources
