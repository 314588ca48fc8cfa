-- Every loaded row (performance and power) with its identity resolved from today's reference tables,
-- and its unit checked, not trusted.
-- `results` keeps names and units as published; this model adds identity and the checked unit at view
-- time, so an edited reference CSV reaches every row without a refetch (`mlperf-wh views refresh`).
-- accelerator: the canonical accelerator of the published name (base_accelerator_names says how): the
--   part as it was sold, its variant (A100 SXM 80GB, Cloud AI 100 Lite, Mali-G52 MP6), and for a
--   virtualized part '<part> (virtualized)': a virtualization word in the name ("H100-80C",
--   "Virtualized NVIDIA H200-SXM-141GB") or in the system's name ("R7525_vA100-PCIE-40GBx3_TRT",
--   variant_markers.csv). device: the part without the virtualization (its facts: vendor, TDP...);
--   virtualized: which of the two. product: the product its variants roll up to ('A100'), for a
--   question about a product in any form; every ranking, pair and gain keys on accelerator.
-- partition, partitions_per_device, partition_fraction: a partition of the device the entry ran on
--   (base_accelerator_names: an NVIDIA MIG profile such as '1g.10gb', the instances each device runs,
--   the profile's share of the device, 1/7 for 1g.10gb of an A100); null for a whole device. The
--   accelerator stays the device, so its history and family hold; hardware is the partition,
--   'A100 SXM (MIG 1g.10gb)', so no comparison sets a slice beside whole devices.
--   total_partitions: the instances the run used: as the platform names them, the harness's
--   convention ('DGX-A100_A100-SXM-80GB-MIG_56x1g.10gb': 56 on 8 GPUs of 7x1g.10gb;
--   'Apollo_6500_gen10_plus_A100-SXM-80GB-MIG_1x1g.10gb': 1, though its description counts 8 GPUs of
--   1x1g.10gb, and its 5,559.41 resnet samples/s are one instance's), else total_accelerators x
--   partitions_per_device. The entry still counts its devices in total_accelerators (8).
-- cpu: for a CPU-only system (no accelerator published), the canonical processor of the published
--   processor name (base_processor_names); total_processors = nodes (1 when not published) x
--   processors per node. hardware: what the result measures and the comparisons key on, the
--   accelerator (its partition, for a partitioned device) or, for a CPU-only system, the cpu; hardware_kind 'accelerator' | 'cpu';
--   hardware_count: total_accelerators (total_partitions for a partition), or total_processors for a
--   CPU-only system.
-- vendor, family, generation (order within a vendor, newer is larger), tdp_watts, segment
--   (datacenter, workstation, edge, client), form_factor ('CPU' for a processor), line (product
--   line): the canonical accelerator's (ref_accelerators) or cpu's (ref_processors); null for a mixed
--   or unmatched name.
-- market: whose answer the row belongs to (the report's answer tables, README question 6): 'datacenter'
--   for a datacenter-class part (segment datacenter) in the datacenter suite; 'edge' for every other
--   part that ran: an edge part, a datacenter-class part in the edge suite alone, and workstation and
--   client parts (consumer cards, laptop GPUs) in any suite, so a consumer card never answers the
--   datacenter buyer; null for an unmatched or mixed part. The one place this rule is written.
-- benchmark: the canonical benchmark of the published model name (base_benchmark_names says how);
--   the published model name when no alias matches (benchmark_matched = false). output_unit: the
--   benchmark's (tokens, samples...).
-- published_accelerator_watts: the board power the entry itself states for its accelerators, a power
--   cap or a TGP written in the accelerator name, the system name or the notes, in any order ("AMD
--   Instinct MI355X 288GB HBM3e (Power Cap 1000 W)", notes "B300 TGP 1100W", "1400W TGP Per GPU");
--   accelerator_power_statement: the phrase read; accelerator_power_stated_as: 'power cap' or 'TGP'
--   (TDP included); null when the entry states none (base_hardware_statements).
--   power_statement_unread: a power cap, TGP or TDP is mentioned and no figure could be read (the words
--   around it; listed in `drift`, kind 'power_statement').
-- accelerator_absent: the entry says it ran without its accelerator: the phrase of its notes or name
--   ("CPU only submission") or of its system description (mlperf-wh trees: hw_notes, or 0 accelerators
--   per node). value_per_accelerator is then null: it measured no accelerator.
-- benchmark_family, accuracy_target: the benchmark without and with its accuracy target
--   (llama2-70b-99.9: llama2-70b and '99.9'; null for a benchmark with one target).
-- repeats_lower_target: a 99.9 result of an entry that publishes the same value for the 99 target of
--   the same family and scenario: one run met both targets and is published twice; leave it out of
--   any count of results (WHERE NOT repeats_lower_target) so a count never doubles.
-- stack: the serving stack family the published software string names (software_stacks.csv: first
--   pattern that matches; TensorRT, vLLM, SGLang...), null when none matches (base_software_stacks).
-- inferred: MLCommons' flag as published. inferred_cause: what set it, read as the checker sets it
--   (docs/definitions.md section 1b cites the lines). results.py flags a row whenever the scenario of
--   its folder differs from the run's effective_scenario as a case-sensitive string, except
--   ('server', 'interactive'); but the checker converts a result only when the two differ ignoring
--   case (performance_check.py get_performance_metric_check), only on an edge system, and only Offline
--   from SingleStream or MultiStream, MultiStream from SingleStream (inferred_check, list_inferred).
--   Null when not flagged; else, first that applies:
--   'converted from <scenario>': the run's own summary (`mlperf-wh trees`) names another scenario,
--     letter case aside: a real inference;
--   'same scenario, other letter case': the run's summary names the row's scenario (an 'offline'
--     folder, the endpoint harness's lower-case names) or a Server run reported as Interactive;
--   without the run's summary: 'no conversion reaches <scenario>' (Server, Interactive, SingleStream
--     are never converted to), 'no conversion on a datacenter system' (the suite is not edge);
--   'above any conversion of its own runs': an edge system's Offline row above twice the rate of every
--     SingleStream and MultiStream run its entry publishes for the benchmark (1000 / latency ms,
--     8000 / latency ms: what the checker's conversion reports from a run, 1 / mean latency, with the
--     mean at least half the published percentile): measured (conversion_ceilings);
--   'possibly converted': an edge system's Offline or MultiStream row, no run summary loaded.
-- inferred_result: the figure is an inference (converted, or possibly converted): it never takes part
--   in a comparison (not_comparable_because). Every other flagged row was measured in its scenario.
-- not_comparable_because: why the row never takes part in a comparison as its hardware (software
--   gains, generation speedups, scaling, the claim audit's best rows: int_best_results; every ranked
--   answer: int_result_eligibility), first that applies: it ran without its accelerator; an
--   accelerator is named and 0 are counted; its figure is an inference (inferred_result). Null: the
--   row compares.
-- round_order sorts rounds numerically (v10.0 after v9.1).
-- run_path: the run folder of the submission tree, the published Location without a leading './'
--   or trailing '/', with '/performance/run_1' appended when the round left it out (as
--   warehouse/trees.py run_folder does); system_path: '<division>/<submitter>/systems/<platform>.json'
--   from the same folder's parts. Both null when the row names no folder of that shape.
-- Units, checked (performance rows; power rows keep their units, verdict null):
--   published_units: the label as published. What the number counts comes from two kinds of evidence:
--   the run's own LoadGen summary when `mlperf-wh trees` loaded it (summary_tokens_per_second,
--   summary_samples_per_second, summary_latency_ms: the summary's figure for the row's scenario, and
--   for Server its scheduled rate, the figure the checker read before v4.1; the value matches one
--   within 0.5%, the rounding of published tables) and the round's submission
--   checker rule (base_result_rules: the LoadGen field it reads). unit_verdict, first that applies:
--     the summary matches the value: 'confirmed' when it is the label's kind of figure, else
--       'corrected' (the summary names what the number is);
--     the summary of the same scenario has the label's kind of figure and the value matches nothing
--       it prints: 'suspect' (no safe correction);
--     no rule and no summary, or a label of no known kind: 'unchecked';
--     the rule counts what the label says: 'confirmed'; else 'corrected' (the table holds the field
--       the checker read; only its label is wrong).
--   units: the checked unit every comparison uses: the published label, or for a corrected row
--   'Tokens/s' (tokens), 'Samples/s' (samples, Offline) or 'Queries/s' (samples, Server and
--   Interactive), as the final-report tool labels them. unit_note says which evidence decided. What a
--   label counts is the macro unit_counts (schemas/results.py: Tasks/s, the end-to-end RAG
--   benchmark's questions answered per second, counts LoadGen samples as Samples/s does).
-- value_per_accelerator = value / total_accelerators for higher-is-better units; null for latency,
--   power and CPU-only systems, and for a partition whose instances do not fill every device
--   (total_partitions x partition_fraction < total_accelerators: one 1g.10gb instance on an A100,
--   a per-device figure would be a seventh's). value_per_partition = value /
--   total_partitions for a partition (higher-is-better units); null for a whole device.
-- tokens_per_second: the value when it counts tokens (units Tokens/s, checked); the value x the
--   TOKENS_PER_SAMPLE the accuracy field reports when it counts samples (Samples/s, Queries/s, Tasks/s);
--   null for a suspect row, and otherwise. Tokens are never derived from a number that already counts them.
-- Names are resolved once per distinct name (sql/base/), then joined to the rows.
WITH accelerators AS (
    SELECT DISTINCT accelerator, product, vendor, family, generation, tdp_watts, segment, form_factor, line
    FROM ref_accelerators
),
processors AS (
    SELECT DISTINCT processor AS cpu, vendor, family, segment, line FROM ref_processors
),
round_orders AS (
    SELECT round,
           round_order(round) AS round_order
    FROM (SELECT DISTINCT round FROM results)
),
-- The two figures a row is judged against its neighbours by, aggregated narrow and joined back: as
-- window functions over the wide rows they were four fifths of a full scan (4.7 of 6 s on a million
-- rows, bench/views_bench.py).
lower_targets AS (
    -- the value each entry publishes for the 99 target of a family, scenario and unit
    SELECT r.source_id, r.entry_id, b.benchmark_family, r.scenario, r.units, max(r.value) AS value_at_99
    FROM results AS r
    JOIN base_benchmark_names AS b
        ON b.model IS NOT DISTINCT FROM r.model AND b.used_model IS NOT DISTINCT FROM r.used_model
    WHERE r.metric = 'performance' AND b.accuracy_target = '99'
    GROUP BY ALL
),
conversion_ceilings AS (
    -- the most any conversion of an entry's own SingleStream and MultiStream runs could report as an
    -- Offline figure, per benchmark (docs/definitions.md section 1b, conversion bounds): the checker
    -- reports 1 / mean latency from a SingleStream run and 8 samples / mean query latency from a
    -- MultiStream one; with the mean at least half the published percentile, twice the larger rate
    SELECT source_id, entry_id, model, used_model,
           2 * max(CASE scenario WHEN 'SingleStream' THEN 1000 / latency_ms ELSE 8000 / latency_ms END)
               AS conversion_ceiling
    FROM (SELECT *, CASE units WHEN 'Latency (ms)' THEN value WHEN 'Latency (s)' THEN value * 1000 END AS latency_ms
          FROM results
          WHERE metric = 'performance' AND scenario IN ('SingleStream', 'MultiStream')
            AND contains(lower(coalesce(suite, '')), 'edge'))
    WHERE latency_ms > 0
    GROUP BY ALL
),
identified AS (
    SELECT
        r.* EXCLUDE (units),
        r.units AS published_units,
        -- a system its name marks as virtualized runs a virtualized part (variant_markers.csv)
        n.device IS NOT NULL AND NOT n.virtualized AND virtualized_system(r.platform) AS virtualized_by_system,
        n.accelerator || CASE WHEN virtualized_by_system THEN ' (virtualized)' ELSE '' END AS row_accelerator,
        row_accelerator AS accelerator, n.device, a.product,
        coalesce(n.virtualized OR virtualized_by_system, false) AS virtualized,
        p.cpu,
        n.partition, n.partitions_per_device, n.partition_fraction,
        coalesce(CASE WHEN n.partition IS NOT NULL
                      THEN nullif(regexp_extract(r.platform, '(?i)mig[-_ ]?(\d+)\s*x\s*\d+g\.\d+gb', 1), '')::BIGINT END,
                 r.total_accelerators * n.partitions_per_device) AS total_partitions,
        CASE WHEN p.cpu IS NOT NULL THEN r.processors_per_node * coalesce(r.nodes, 1) END AS total_processors,
        coalesce(row_accelerator || ' (MIG ' || n.partition || ')', row_accelerator, p.cpu) AS hardware,
        CASE WHEN n.accelerator IS NOT NULL THEN 'accelerator' WHEN p.cpu IS NOT NULL THEN 'cpu' END AS hardware_kind,
        CASE WHEN n.accelerator IS NOT NULL THEN coalesce(total_partitions, r.total_accelerators)
             WHEN p.cpu IS NOT NULL THEN total_processors END AS hardware_count,
        coalesce(a.vendor, pr.vendor) AS vendor, coalesce(a.family, pr.family) AS family, a.generation,
        a.tdp_watts, coalesce(a.segment, pr.segment) AS segment,
        CASE WHEN coalesce(a.segment, pr.segment) = 'datacenter'
                  AND NOT coalesce(r.suite ILIKE '%edge%' AND r.suite NOT ILIKE '%datacenter%', false)
                 THEN 'datacenter'
             WHEN coalesce(a.segment, pr.segment) IS NOT NULL THEN 'edge'
        END AS market,
        CASE WHEN p.cpu IS NOT NULL THEN 'CPU' ELSE a.form_factor END AS form_factor,
        coalesce(a.line, pr.line) AS line,
        coalesce(b.benchmark, r.model) AS benchmark,
        b.benchmark IS NOT NULL AS benchmark_matched,
        b.output_unit, b.benchmark_family, b.accuracy_target, st.stack,
        lt.value_at_99, cc.conversion_ceiling,
        ro.round_order,
        CASE WHEN r.higher_is_better AND r.total_accelerators > 0
                  AND (n.partition IS NULL OR total_partitions * n.partition_fraction >= r.total_accelerators - 0.001)
             THEN r.value / r.total_accelerators END AS value_per_accelerator,
        CASE WHEN r.higher_is_better AND total_partitions > 0 THEN r.value / total_partitions END AS value_per_partition,
        sp.published_accelerator_watts, sp.accelerator_power_stated_as, sp.accelerator_power_statement,
        sp.power_statement_unread,
        sp.accelerator_absent AS absence_stated,
        trim(regexp_replace(trim(r.location), '^\./', ''), '/') AS folder,
        split_part(folder, '/', 3) = 'results' AND len(string_split(folder, '/')) >= 6 AS is_run_folder,
        rr.counts AS rule_counts, rr.rule_text, rr.note_as_labelled
    FROM results AS r
    LEFT JOIN base_accelerator_names AS n USING (accelerator_raw)
    LEFT JOIN accelerators AS a ON a.accelerator = n.device
    LEFT JOIN base_processor_names AS p ON r.accelerator_raw IS NULL AND p.processor = r.processor
    LEFT JOIN processors AS pr ON pr.cpu = p.cpu
    LEFT JOIN base_benchmark_names AS b
        ON b.model IS NOT DISTINCT FROM r.model AND b.used_model IS NOT DISTINCT FROM r.used_model
    LEFT JOIN round_orders AS ro ON ro.round = r.round
    LEFT JOIN base_software_stacks AS st ON st.software IS NOT DISTINCT FROM r.software
    LEFT JOIN lower_targets AS lt
        ON  r.metric = 'performance' AND lt.source_id = r.source_id AND lt.entry_id IS NOT DISTINCT FROM r.entry_id
        AND lt.benchmark_family IS NOT DISTINCT FROM b.benchmark_family
        AND lt.scenario IS NOT DISTINCT FROM r.scenario AND lt.units IS NOT DISTINCT FROM r.units
    LEFT JOIN conversion_ceilings AS cc
        ON  r.metric = 'performance' AND r.scenario = 'Offline' AND cc.source_id = r.source_id
        AND cc.entry_id IS NOT DISTINCT FROM r.entry_id AND cc.model IS NOT DISTINCT FROM r.model
        AND cc.used_model IS NOT DISTINCT FROM r.used_model
    LEFT JOIN base_hardware_statements AS sp
        ON  sp.accelerator_raw IS NOT DISTINCT FROM r.accelerator_raw AND sp.system IS NOT DISTINCT FROM r.system
        AND sp.notes IS NOT DISTINCT FROM r.notes
    LEFT JOIN base_result_rules AS rr
        ON  r.metric = 'performance' AND rr.round = r.round AND rr.scenario = r.scenario
        AND rr.model IS NOT DISTINCT FROM r.model AND rr.used_model IS NOT DISTINCT FROM r.used_model
),
located AS (
    SELECT
        * EXCLUDE (folder, is_run_folder),
        CASE WHEN NOT is_run_folder THEN NULL
             WHEN folder LIKE '%/performance/run_1' THEN folder
             ELSE folder || '/performance/run_1' END AS run_path,
        CASE WHEN is_run_folder
             THEN split_part(folder, '/', 1) || '/' || split_part(folder, '/', 2) || '/systems/'
                  || split_part(folder, '/', 4) || '.json' END AS system_path,
        unit_counts(published_units) AS label_counts
    FROM identified
),
summarized AS (
    SELECT
        l.*,
        s.loadgen_scenario AS summary_scenario,
        CASE WHEN l.scenario = 'Offline' THEN coalesce(s.tokens_per_second, s.tokens_per_second_inferred)
             ELSE coalesce(s.completed_tokens_per_second, s.completed_tokens_per_second_inferred)
        END AS summary_tokens_per_second,
        CASE WHEN l.scenario = 'Offline' THEN s.samples_per_second ELSE s.completed_samples_per_second
        END AS summary_samples_per_second,
        -- Server: the scheduled rate, the figure the checker read before v4.1 (result_fields.csv)
        CASE WHEN l.scenario <> 'Offline' THEN s.scheduled_samples_per_second END AS summary_scheduled_per_second,
        CASE WHEN l.scenario = 'SingleStream' THEN coalesce(s.early_stopping_p90_ns, s.result_latency_ns)
             ELSE coalesce(s.early_stopping_p99_ns, s.result_latency_ns) END / 1e6 AS summary_latency_ms,
        coalesce(s.loadgen_scenario = l.scenario
                 OR (l.scenario = 'Interactive' AND s.loadgen_scenario = 'Server'), false) AS summary_same_scenario,
        CASE WHEN l.published_units = 'Latency (s)' THEN l.value * 1000 ELSE l.value END AS value_as_summarized,
        coalesce(l.absence_stated,
                 CASE WHEN l.accelerator IS NULL THEN NULL
                      WHEN d.accelerators_per_node = 0 THEN 'system description: 0 accelerators per node'
                      ELSE 'system description: ' || nullif(regexp_extract(
                          concat_ws(' | ', d.hw_notes, d.sw_notes, d.accelerator_model_name),
                          '(?i)\b(cpu[\s-]*only|host[\s-]*only|without\s+(the\s+|an?\s+|any\s+)?(gpus?|accelerators?))\b'), '')
                 END) AS accelerator_absent
    FROM located AS l
    LEFT JOIN run_summaries AS s ON l.metric = 'performance' AND s.round = l.round AND s.run_path = l.run_path
    LEFT JOIN systems AS d ON d.round = l.round AND d.system_path = l.system_path
),
evidenced AS (
    SELECT
        *,
        CASE WHEN NOT summary_same_scenario THEN NULL
             WHEN abs(value - summary_tokens_per_second) <= 0.005 * summary_tokens_per_second THEN 'tokens'
             WHEN abs(value - summary_samples_per_second) <= 0.005 * summary_samples_per_second THEN 'samples'
             WHEN abs(value - summary_scheduled_per_second) <= 0.005 * summary_scheduled_per_second THEN 'samples'
             WHEN abs(value_as_summarized - summary_latency_ms) <= 0.005 * summary_latency_ms THEN 'latency'
        END AS summary_counts,
        summary_same_scenario AND CASE label_counts
            WHEN 'tokens' THEN summary_tokens_per_second IS NOT NULL
            WHEN 'samples' THEN summary_samples_per_second IS NOT NULL
            WHEN 'latency' THEN summary_latency_ms IS NOT NULL
            ELSE false END AS summary_has_label_figure
    FROM summarized
),
judged AS (
    SELECT
        *,
        CASE
            WHEN metric <> 'performance' THEN NULL
            WHEN summary_counts IS NOT NULL AND summary_counts = label_counts THEN 'confirmed'
            WHEN summary_counts IS NOT NULL AND label_counts IS NOT NULL THEN 'corrected'
            WHEN summary_has_label_figure THEN 'suspect'
            WHEN rule_counts IS NULL OR label_counts IS NULL THEN 'unchecked'
            WHEN rule_counts = label_counts THEN 'confirmed'
            ELSE 'corrected'
        END AS unit_verdict,
        coalesce(summary_counts, rule_counts) AS checked_counts,
        CASE
            WHEN NOT coalesce(inferred, false) THEN NULL
            WHEN summary_scenario IS NOT NULL
                 AND (lower(summary_scenario) = lower(scenario)
                      OR (lower(summary_scenario) = 'server' AND lower(scenario) = 'interactive'))
                THEN 'same scenario, other letter case'
            WHEN summary_scenario IS NOT NULL THEN 'converted from ' || summary_scenario
            WHEN scenario NOT IN ('Offline', 'MultiStream') THEN 'no conversion reaches ' || scenario
            WHEN NOT contains(lower(coalesce(suite, '')), 'edge') THEN 'no conversion on a datacenter system'
            WHEN value > conversion_ceiling THEN 'above any conversion of its own runs'
            ELSE 'possibly converted'
        END AS inferred_cause
    FROM evidenced
)
SELECT
    * EXCLUDE (virtualized_by_system, row_accelerator, label_counts, summary_counts, summary_has_label_figure, summary_same_scenario,
               value_as_summarized, checked_counts, rule_counts, rule_text, note_as_labelled, absence_stated,
               value_per_accelerator, value_per_partition, stack, benchmark_family, accuracy_target, value_at_99,
               inferred_cause, conversion_ceiling),
    CASE WHEN accelerator_absent IS NULL THEN value_per_accelerator END AS value_per_accelerator,
    CASE WHEN accelerator_absent IS NULL THEN value_per_partition END AS value_per_partition,
    stack,
    benchmark_family,
    accuracy_target,
    coalesce(accuracy_target = '99.9' AND metric = 'performance' AND value = value_at_99, false)
        AS repeats_lower_target,
    inferred_cause,
    coalesce(inferred_cause LIKE 'converted from %' OR inferred_cause = 'possibly converted', false) AS inferred_result,
    CASE
        WHEN accelerator_absent IS NOT NULL
            THEN format('it ran without its accelerator ({}: "{}")',
                        CASE WHEN accelerator_absent LIKE 'system description: %' THEN 'its system description'
                             ELSE 'its notes' END,
                        regexp_replace(accelerator_absent, '^system description: ', ''))
        WHEN accelerator IS NOT NULL AND total_accelerators = 0
            THEN format('{} is named and 0 accelerators are counted', accelerator)
        WHEN inferred_cause LIKE 'converted from %'
            THEN format('MLCommons inferred it from another scenario''s run (inferred = 1; the run summary in '
                        'its folder is a {} run)', summary_scenario)
        WHEN inferred_cause = 'possibly converted'
            THEN 'MLCommons may have inferred it from a SingleStream or MultiStream run (inferred = 1 on an '
                 'edge system; `mlperf-wh trees` loads the run summary that settles it)'
    END AS not_comparable_because,
    CASE WHEN unit_verdict IS DISTINCT FROM 'corrected' THEN published_units
         WHEN checked_counts = 'tokens' THEN 'Tokens/s'
         WHEN scenario = 'Offline' THEN 'Samples/s'
         ELSE 'Queries/s' END AS units,
    CASE
        WHEN unit_verdict IS NULL THEN NULL
        WHEN summary_counts = label_counts
            THEN format('the run summary prints {} {}, as labelled', value, per_count(summary_counts))
        WHEN summary_counts IS NOT NULL
            THEN format('published as {} {}; the run summary prints this number as {}', value, published_units,
                        per_count(summary_counts))
        WHEN unit_verdict = 'suspect'
            THEN format('published as {} {}; the run summary prints {} {}', value, published_units,
                        CASE label_counts WHEN 'tokens' THEN summary_tokens_per_second
                                          WHEN 'samples' THEN summary_samples_per_second
                                          ELSE summary_latency_ms END, per_count(label_counts))
        WHEN label_counts IS NULL
            THEN format('the unit {} is of no known kind', coalesce(published_units, '(none)'))
        WHEN rule_counts IS NULL
            THEN format('no submission-checker rule reaches {} {} {} and no run summary is loaded',
                        round, benchmark, scenario)
        WHEN rule_counts = label_counts THEN note_as_labelled
        ELSE 'published as ' || published_units || '; ' || rule_text || ': ' || per_count(rule_counts)
    END AS unit_note,
    CASE WHEN unit_verdict = 'suspect' THEN NULL
         WHEN coalesce(checked_counts, label_counts) = 'tokens' THEN value
         WHEN coalesce(checked_counts, label_counts) = 'samples' THEN value * tokens_per_sample
    END AS tokens_per_second
FROM judged
