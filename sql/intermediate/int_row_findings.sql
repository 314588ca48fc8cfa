-- Which results contradict themselves, their own entry or the results of the same hardware?
-- One row per (performance row, rule) that finds something; a row with a finding leaves every
-- procurement-grade comparison (int_best_results.has_finding) and is listed in `anomalies`. Rules:
--   unit_suspect: the run's own LoadGen summary prints another number than the table
--     (stg_results.unit_verdict = 'suspect'; unit_note says what it prints);
--   accelerator_count_disagrees: the accelerator name states a count, "(x87)" (several parts: their
--     sum), other than the entry's total accelerators, or the published total differs from nodes x
--     accelerators per node (parse: accelerator_count_disagrees); per-accelerator figures are then
--     off by the difference;
--   offline_below_singlestream: the entry's Offline rate (samples/s) is more than 5 % below the rate its
--     own SingleStream latency implies (one sample per latency: 1000 / ms, 1 / s); Offline is the
--     throughput ceiling, so one of the two is wrong. Two runs of one system differ by a percent or
--     two (Krai's v2.1 open mobilenets: 115.43 against 115.68, 0.2 % apart; NVIDIA's v1.1 MIG 1g.10gb
--     3d-unet: 7.607 against 7.77, 2 %): within 5 % is timing, not a contradiction. Both rows get the
--     finding, each naming the other;
--   out_of_range: the result per accelerator is more than 10x above or below the median of every
--     closed or open result of the same benchmark, scenario, hardware and era of the benchmark
--     (int_figure_eras: 3d-unet's BraTS results of v0.7-v1.1 are never set against KiTS19's; in
--     tokens/s where they are known, else in its checked unit; at least 3 results): a unit, count or
--     setup no peer shares. A partition of a device (MIG 1g.10gb) is measured per partition, against
--     the same partition only;
--   stale_value: the latest table of the row's source publishes it in a record that failed
--     validation; the row shows its last good value, from an earlier load (stg_results.stale), which
--     no procurement-grade answer uses until a good value is published again.
-- related_result_id, related_record_no (in the row's own load, source_id): the other row a finding
--   rests on (offline_below_singlestream: the entry's other scenario), null when none; related: it
--   for a reader, its result_id, or for a row rebuilt from a submission tree (no result_id) its
--   submitter and platform, as int_pair_findings names the other side of a pair.
-- evidence: what the finding rests on. 'own': the row's own run summary, its entry (its count, its
--   other scenario) or its source (unit_suspect, accelerator_count_disagrees, offline_below_singlestream,
--   stale_value): the figure contradicts itself, and it leaves every ranked answer. 'peers': other
--   results (out_of_range): the figure is questioned, listed and shown, never removed, for a result
--   is not wrong because another system ran slower (int_result_eligibility, docs/definitions.md 1c).
-- Pairs that contradict each other (scaling efficiency above 1.05) are findings of the pair, not of
-- either row: int_scaling_pairs and `anomalies`.
WITH perf AS MATERIALIZED (
    -- read once: every rule below scans these rows
    SELECT source_id, record_no, entry_id, round, result_id, submitter, platform, accelerator, hardware,
           hardware_count, partition, benchmark, model,
           used_model, scenario, value, units, higher_is_better, total_accelerators, nodes, accelerators_per_node,
           accelerator_raw, accelerator_count_disagrees, unit_verdict, tokens_per_second, verification, stale_reason,
           CASE WHEN unit_verdict = 'suspect' THEN unit_note END AS suspect_note  -- a note only where one is used
    FROM stg_results WHERE metric = 'performance'
),
unit_suspects AS (
    SELECT source_id, record_no, 'unit_suspect' AS rule, suspect_note AS detail, NULL AS related_result_id,
           NULL::BIGINT AS related_record_no
    FROM perf WHERE unit_verdict = 'suspect'
),
stale_values AS (
    SELECT source_id, record_no, 'stale_value' AS rule,
           format('the last good value, kept: the re-published row was quarantined ({})', stale_reason) AS detail,
           NULL AS related_result_id, NULL::BIGINT AS related_record_no
    FROM perf WHERE stale_reason IS NOT NULL
),
named AS (
    SELECT *, list_sum(list_transform(regexp_extract_all(accelerator_raw, '\(x([0-9]+)\)', 1),
                                      lambda n: n::BIGINT)) AS named_count
    FROM perf
),
count_mismatches AS (
    SELECT source_id, record_no, 'accelerator_count_disagrees' AS rule,
           CASE WHEN named_count > 0 AND named_count <> total_accelerators
                THEN format('the accelerator name states {} accelerators; the entry has {} ({} nodes x {})',
                            named_count, total_accelerators, nodes, accelerators_per_node)
                ELSE format('the entry publishes {} accelerators in all; {} nodes x {} per node is {}',
                            total_accelerators, nodes, accelerators_per_node, nodes * accelerators_per_node)
           END AS detail,
           NULL AS related_result_id, NULL::BIGINT AS related_record_no
    FROM named
    WHERE (named_count > 0 AND named_count <> total_accelerators) OR accelerator_count_disagrees
),
single_stream_rates AS (
    SELECT source_id, entry_id, model, used_model, record_no, result_id, value AS latency, units,
           CASE units WHEN 'Latency (s)' THEN 1 / value ELSE 1000 / value END AS rate
    FROM perf WHERE scenario = 'SingleStream' AND units IN ('Latency (ms)', 'Latency (s)')
),
offline_pairs AS (
    SELECT o.source_id, o.record_no AS offline_record, o.result_id AS offline_result, o.value AS offline,
           s.record_no AS single_record, s.result_id AS single_result, s.latency, s.units, s.rate
    FROM perf AS o
    JOIN single_stream_rates AS s
      ON  s.source_id = o.source_id AND s.entry_id = o.entry_id AND s.model = o.model
      AND s.used_model IS NOT DISTINCT FROM o.used_model
    WHERE o.scenario = 'Offline' AND o.units = 'Samples/s' AND o.value < 0.95 * s.rate
),
offline_below AS (
    SELECT source_id, offline_record AS record_no, 'offline_below_singlestream' AS rule,
           format('Offline {} samples/s is below the {} samples/s its own SingleStream latency ({} {}) implies',
                  offline, round(rate, 6), latency, units) AS detail,
           single_result AS related_result_id, single_record AS related_record_no
    FROM offline_pairs
    UNION ALL
    SELECT source_id, single_record, 'offline_below_singlestream',
           format('SingleStream {} {} implies {} samples/s, above its own Offline {} samples/s',
                  latency, units, round(rate, 6), offline),
           offline_result, offline_record
    FROM offline_pairs
),
rates AS (
    -- per device, or per partition for a partition of one (its peers: the same partition, never whole devices)
    SELECT source_id, record_no, benchmark, scenario, hardware, e.era,
           CASE WHEN partition IS NULL THEN 'accelerator' ELSE 'partition' END AS per,
           CASE WHEN tokens_per_second IS NOT NULL THEN 'tokens/s' ELSE units END AS rate_unit,
           coalesce(tokens_per_second, value) / hardware_count AS rate
    FROM perf
    LEFT JOIN int_figure_eras AS e USING (round, benchmark, scenario)
    WHERE higher_is_better AND accelerator IS NOT NULL AND hardware_count > 0
      AND unit_verdict IS DISTINCT FROM 'suspect' AND verification IN ('verified', 'preview', 'open', 'rdi')
),
peer_medians AS (
    SELECT benchmark, scenario, rate_unit, hardware, era, median(rate) AS peer_median, count(*) AS peers
    FROM rates
    GROUP BY ALL
),
ranged AS (
    SELECT * FROM rates JOIN peer_medians USING (benchmark, scenario, rate_unit, hardware, era)
),
out_of_range AS (
    SELECT source_id, record_no, 'out_of_range' AS rule,
           format('{} {} per {} is {}x the median of {} results of {} {} on {}{}', round(rate, 4), rate_unit, per,
                  round(rate / peer_median, 3), peers, benchmark, scenario, hardware,
                  CASE WHEN era <> '' THEN ' (era ' || era || ')' ELSE '' END) AS detail,
           NULL AS related_result_id, NULL::BIGINT AS related_record_no
    FROM ranged
    WHERE peers >= 3 AND (rate > 10 * peer_median OR rate < peer_median / 10)
)
SELECT f.source_id, f.record_no, p.round, p.result_id, p.submitter, p.accelerator, p.benchmark, p.scenario, p.verification,
       f.rule, CASE f.rule WHEN 'out_of_range' THEN 'peers' ELSE 'own' END AS evidence,
       f.detail, f.related_result_id, f.related_record_no,
       coalesce(f.related_result_id, o.submitter || ' ' || o.platform) AS related
FROM (SELECT * FROM unit_suspects
      UNION ALL SELECT * FROM count_mismatches
      UNION ALL SELECT * FROM offline_below
      UNION ALL SELECT * FROM out_of_range
      UNION ALL SELECT * FROM stale_values) AS f
JOIN perf AS p USING (source_id, record_no)
LEFT JOIN perf AS o ON o.source_id = f.source_id AND o.record_no = f.related_record_no
