-- What does each throughput result give per accelerator, per rack, per kW and per dollar-hour, in tokens
-- where they are known and in the benchmark's own unit everywhere?
-- One row per throughput result (Offline, Server, Interactive) whose unit is not suspect (stg_results).
-- throughput, throughput_unit: the result in its checked unit (Tokens/s, Samples/s, Queries/s, Tasks/s: one
--   query is one sample); tokens_per_second: the result when it counts tokens, the samples x the
--   TOKENS_PER_SAMPLE its accuracy field reports (tokens_derived), else the output tokens per second
--   the run itself measured (run_tokens_per_second), else null. tokens_basis says which: 'published
--   tokens', 'published samples x tokens per sample' or 'run output tokens' (Qwen3-VL publishes
--   samples/s only; the endpoint harness's runs print their tokens).
-- run_tokens_per_second: the run's own output tokens per second, from its summary (`mlperf-wh trees`)
--   for the row's scenario: LoadGen's 'Tokens per second' (Offline) or 'Completed tokens per second'
--   (Server, Interactive), never its '(inferred)' lines (samples x a configured count); the endpoint
--   harness's tps. Null without a loaded summary of the same scenario, or when it prints none.
-- partition: the MIG profile of a partitioned device (stg_results); its per-accelerator figures are
--   per device only where its instances fill every device (else null), and the marts that rank
--   accelerators against each other (accelerator_comparison, rack_throughput) leave it out.
-- Per accelerator: / total_accelerators. Per rack: per accelerator x accelerators_per_rack
--   (stg_rack_capacity, with its stated assumption); how the rack figure was got:
--   measured_rack: the entry ran exactly one rack (total_accelerators = accelerators_per_rack): the
--     figure is what was measured;
--   rack_from_servers: it did not, but ran whole servers of the rack (at least accelerators_per_server:
--     an NVL72 compute tray of 4, an 8-GPU baseboard), fewer or more than a rack holds: an estimate,
--     scaled linearly (it assumes scaling costs nothing), never labelled measured (AMD's MI355X x72
--     6.1-0004 scaled to a 32-GPU rack is an estimate);
--   rack_basis says it in words: 'measured on N accelerators', 'extrapolated from N accelerators',
--     'scaled down from N accelerators, more than one rack (R)', or 'extrapolated from N
--     accelerator(s), less than one server (S)': never ranked with racks (rack_throughput).
-- Power, never mixed; four bases, each its own column, each null when it cannot be stated:
--   measured_watts: the run's own measured power (stg_measured_power, basis 'measured system power': the
--     average wall power of the whole system under test during the run, in Watts), a published table's
--     power result or the figure read from the round's tree as MLCommons' checker reads it;
--   nameplate_watts: the power the entry states its whole system can draw (stg_nameplate_power, basis
--     'nameplate system power': v6.1's design_power_watts, its PSUs' capacity); absent where the table
--     gives "None", never zero. A capacity, not a draw (at or above what the system drew, so a figure per
--     kW on it understates the system), and its own basis;
--   system_estimate_watts: a whole system (or rack) of a cited reference (stg_system_power: a DGX B200
--     at 14.3 kW, a GB200 NVL72 rack at 120 kW; what it includes is in the reference; power_reference
--     names it), scaled to the entry's accelerator count: (watts_per_accelerator + adjustment) x
--     total_accelerators, the adjustment being the entry's published board power minus the TDP (a power
--     cap below the TDP lowers it; the H200 CTS at 1000 W raises it);
--   accelerators_only_watts: the boards' power x total_accelerators, as the entry states it
--     (accelerator_power_basis 'power cap' or 'TGP': a cap published in the system description wins
--     over the TDP), else the TDP of accelerators.csv ('TDP'); hosts, network and cooling left out.
--   CPU-only systems and mixed or unmatched accelerators have no estimate. For each basis:
--   throughput_per_kw_<basis> = throughput / (watts / 1000), tokens_per_joule_<basis> =
--   tokens_per_second / watts (bases: measured, nameplate, system_estimate, accelerators_only).
--   rack_kw_system_estimate: the system estimate per accelerator x accelerators_per_rack / 1000.
--   Compare rows within one basis only.
-- What a dollar buys, from your price of an accelerator-hour (`mlperf-wh prices load FILE`; null
--   without one): system_dollars_per_hour = dollars_per_accelerator_hour x total_accelerators;
--   tokens_per_dollar = tokens_per_second x 3600 / system_dollars_per_hour (tokens one dollar buys);
--   dollars_per_million_tokens = system_dollars_per_hour / (tokens_per_second x 3600) x 1e6 (what a
--   buyer compares); throughput_per_dollar = throughput x 3600 / system_dollars_per_hour (samples or
--   queries one dollar buys, in the throughput's count).
-- tokens_per_second_per_user: the interaction pattern of the run, 1 / mean time per output token
--   (int_latency_profile; null for Offline runs and until `mlperf-wh trees` has loaded the run summary).
-- division, availability: as published. findings, usable, procurement_grade, reason_code, excluded_because: the one
--   eligibility rule (int_result_eligibility): findings are the anomaly rules that name the row, its
--   own and the pair findings that blame it; usable: compares as its hardware with no finding;
--   procurement_grade: usable and verified (closed division, available, audited). Open-division and
--   research (rdi) entries stay, and never rank first in a "best" answer.
-- Stored once per load for the marts token_economics, rack_throughput and own_vs_mlperf.
WITH run_tokens AS (
    SELECT round, run_path, loadgen_scenario, tokens_per_second AS offline_tokens,
           completed_tokens_per_second AS completed_tokens
    FROM stg_run_summaries
),
rates AS (
    SELECT
        r.* EXCLUDE (tokens_per_second),
        r.tokens_per_second AS published_tokens_per_second,
        CASE WHEN r.scenario = 'Offline' AND k.loadgen_scenario = 'Offline' THEN k.offline_tokens
             WHEN r.scenario IN ('Server', 'Interactive') AND k.loadgen_scenario = 'Server' THEN k.completed_tokens
        END AS run_tokens_per_second
    FROM stg_results AS r
    LEFT JOIN run_tokens AS k USING (round, run_path)
    WHERE r.metric = 'performance' AND r.higher_is_better AND r.unit_verdict IS DISTINCT FROM 'suspect'
),
tokened AS (
    SELECT
        *,
        coalesce(published_tokens_per_second, run_tokens_per_second) AS tokens_per_second,
        CASE WHEN published_tokens_per_second IS NOT NULL AND units = 'Tokens/s' THEN 'published tokens'
             WHEN published_tokens_per_second IS NOT NULL THEN 'published samples x tokens per sample'
             WHEN run_tokens_per_second IS NOT NULL THEN 'run output tokens'
        END AS tokens_basis
    FROM rates
),
measured AS (
    SELECT source_id, record_no, measured_watts
    FROM stg_measured_power
    WHERE power_unit = 'Watts'
),
priced AS (
    SELECT
        t.*, m.measured_watts, n.nameplate_watts,
        p.system AS power_reference,
        (p.watts_per_accelerator + coalesce(t.published_accelerator_watts - t.tdp_watts, 0)) * t.total_accelerators
            AS system_estimate_watts,
        coalesce(t.published_accelerator_watts, t.tdp_watts) * t.total_accelerators AS accelerators_only_watts,
        CASE WHEN t.published_accelerator_watts IS NOT NULL THEN t.accelerator_power_stated_as
             WHEN t.tdp_watts IS NOT NULL THEN 'TDP' END AS accelerator_power_basis,
        rc.accelerators_per_rack, rc.accelerators_per_server, rc.assumption AS rack_assumption,
        pr.dollars_per_accelerator_hour
    FROM tokened AS t
    LEFT JOIN measured AS m ON m.source_id = t.source_id AND m.record_no = t.record_no
    LEFT JOIN stg_nameplate_power AS n ON n.source_id = t.source_id AND n.record_no = t.record_no
    LEFT JOIN stg_system_power AS p ON p.accelerator = t.accelerator
    LEFT JOIN stg_rack_capacity AS rc ON rc.accelerator = t.accelerator
    LEFT JOIN stg_prices AS pr ON pr.accelerator = t.accelerator
)
SELECT
    t.round, t.submitter, t.system, t.result_id, t.accelerator, t.partition, t.total_accelerators, t.market,
    t.benchmark, t.benchmark_family, t.accuracy_target, t.repeats_lower_target, t.scenario,
    t.value AS throughput, t.units AS throughput_unit, t.unit_verdict,
    t.value_per_accelerator AS throughput_per_accelerator,
    t.tokens_per_second,
    t.units <> 'Tokens/s' AND t.published_tokens_per_second IS NOT NULL AS tokens_derived,
    t.tokens_basis, t.run_tokens_per_second,
    CASE WHEN t.partition IS NULL OR t.value_per_accelerator IS NOT NULL
         THEN t.tokens_per_second / t.total_accelerators END AS tokens_per_second_per_accelerator,
    t.accelerators_per_rack, t.rack_assumption,
    t.total_accelerators = t.accelerators_per_rack AS measured_rack,
    t.total_accelerators <> t.accelerators_per_rack AND t.total_accelerators >= t.accelerators_per_server
        AS rack_from_servers,
    CASE WHEN t.accelerators_per_rack IS NULL OR t.total_accelerators IS NULL THEN NULL
         WHEN t.total_accelerators = t.accelerators_per_rack
             THEN format('measured on {} accelerators', t.total_accelerators)
         WHEN t.total_accelerators > t.accelerators_per_rack
             THEN format('scaled down from {} accelerators, more than one rack ({})', t.total_accelerators,
                         t.accelerators_per_rack)
         WHEN t.total_accelerators >= t.accelerators_per_server
             THEN format('extrapolated from {} accelerators', t.total_accelerators)
         ELSE format('extrapolated from {} accelerator{}, less than one server ({})', t.total_accelerators,
                     CASE WHEN t.total_accelerators = 1 THEN '' ELSE 's' END, t.accelerators_per_server)
    END AS rack_basis,
    t.value_per_accelerator * t.accelerators_per_rack AS throughput_per_rack,
    t.tokens_per_second / t.total_accelerators * t.accelerators_per_rack AS tokens_per_second_per_rack,
    t.measured_watts, t.nameplate_watts, t.system_estimate_watts, t.power_reference, t.accelerators_only_watts,
    t.accelerator_power_basis,
    t.value / (t.measured_watts / 1000) AS throughput_per_kw_measured,
    t.value / (t.nameplate_watts / 1000) AS throughput_per_kw_nameplate,
    t.value / (t.system_estimate_watts / 1000) AS throughput_per_kw_system_estimate,
    t.value / (t.accelerators_only_watts / 1000) AS throughput_per_kw_accelerators_only,
    t.tokens_per_second / t.measured_watts AS tokens_per_joule_measured,
    t.tokens_per_second / t.nameplate_watts AS tokens_per_joule_nameplate,
    t.tokens_per_second / t.system_estimate_watts AS tokens_per_joule_system_estimate,
    t.tokens_per_second / t.accelerators_only_watts AS tokens_per_joule_accelerators_only,
    t.system_estimate_watts / t.total_accelerators * t.accelerators_per_rack / 1000 AS rack_kw_system_estimate,
    t.tokens_per_second * 3600 / (t.dollars_per_accelerator_hour * t.total_accelerators) AS tokens_per_dollar,
    t.dollars_per_accelerator_hour * t.total_accelerators / (t.tokens_per_second * 3600) * 1e6
        AS dollars_per_million_tokens,
    t.value * 3600 / (t.dollars_per_accelerator_hour * t.total_accelerators) AS throughput_per_dollar,
    t.dollars_per_accelerator_hour,
    lp.tokens_per_second_per_user,
    t.verification, t.division, t.availability,
    e.findings, e.usable, e.procurement_grade, e.reason_code, e.excluded_because,
    t.source_id, t.record_no  -- the row's key, for own_vs_mlperf (the mart leaves them out)
FROM priced AS t
LEFT JOIN int_latency_profile AS lp
  ON lp.source_id = t.source_id AND lp.record_no = t.record_no AND lp.units = t.units
JOIN int_result_eligibility AS e ON e.source_id = t.source_id AND e.record_no = t.record_no
