-- Does the run summary in each result's run folder report the result table's number?
-- The summary is LoadGen's mlperf_log_summary.txt, or the endpoint harness's file (harness says which:
-- result_summary.json, report.txt, or the endpoint client's results.json), whose qps and tps fill the
-- same figures: qps is compared with the table's samples/s (Queries/s), tps with its Tokens/s.
-- summary_result is the summary's figure for the row's published units and scenario (stg_results
-- reads them from the summary): Tokens/s -> 'Tokens per second' (Offline) or 'Completed tokens per
-- second' (Server, Interactive), their '(inferred)' variants when that is all it prints; Samples/s,
-- Queries/s and Tasks/s -> 'Samples per second' (Offline) or 'Completed samples per second'; Latency (ms) ->
-- the early-stopping estimate (90th percentile SingleStream, 99th MultiStream; the plain percentile
-- line when no estimate is printed) in ms; Latency (s) -> the same in s.
-- relative_difference = |result - summary_result| / summary_result. agrees: the run is of the row's
-- scenario (Interactive runs print 'Scenario : Server') and relative_difference <= 0.5%, the
-- rounding of published tables (3-6 significant digits).
-- note explains every row that does not agree: the folder holds another scenario's run; the table
-- gives the summary's tokens per second under units Samples/s or Queries/s; the summary does not
-- print the figure; or they disagree by more than rounding. unit_verdict and unit_note: what
-- stg_results made of it (a label the summary corrects, or a suspect value).
WITH figures AS (
    SELECT
        r.round, r.result_id, r.submitter, r.benchmark, r.scenario, r.published_units AS units, r.value,
        r.verification, r.run_path, s.loadgen_scenario, s.result_valid, r.unit_verdict, r.unit_note,
        s.harness, s.harness_version,
        s.loadgen_scenario = r.scenario
            OR (r.scenario = 'Interactive' AND s.loadgen_scenario = 'Server') AS same_scenario,
        CASE
            WHEN unit_counts(r.published_units) = 'tokens' THEN r.summary_tokens_per_second
            WHEN unit_counts(r.published_units) = 'samples' THEN r.summary_samples_per_second
            WHEN r.published_units = 'Latency (ms)' THEN r.summary_latency_ms
            WHEN r.published_units = 'Latency (s)' THEN r.summary_latency_ms / 1000
        END AS summary_value,
        r.summary_tokens_per_second AS summary_tokens
    FROM stg_results AS r
    JOIN stg_run_summaries AS s USING (round, run_path)
    WHERE r.metric = 'performance'
),
compared AS (
    SELECT *,
        abs(value - summary_value) / nullif(summary_value, 0) AS relative_difference,
        coalesce(same_scenario AND abs(value - summary_value) <= 0.005 * abs(summary_value), false) AS agrees
    FROM figures
)
SELECT
    round, result_id, submitter, benchmark, scenario, loadgen_scenario, units AS published_unit, value AS result,
    summary_value AS summary_result, relative_difference, agrees,
    CASE WHEN agrees THEN NULL
         WHEN NOT same_scenario
             THEN 'the run folder holds a ' || loadgen_scenario || ' run, not ' || scenario
         WHEN units <> 'Tokens/s' AND abs(value - summary_tokens) <= 0.005 * summary_tokens
             THEN 'the table gives the summary''s tokens per second under units ' || units
         WHEN summary_value IS NULL THEN 'the summary does not print this figure'
         ELSE 'the table and the summary disagree by more than rounding'
    END AS note,
    unit_verdict, unit_note,
    result_valid, verification, run_path, harness, harness_version
FROM compared
