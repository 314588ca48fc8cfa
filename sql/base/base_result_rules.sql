-- Which LoadGen field did the round's submission checker read as each published result, and so what
-- does the number count: tokens, samples or a latency?
-- One row per distinct (round, model, model run, scenario) of `results`, with its canonical
-- benchmark (base_benchmark_names) and the rule of ref_result_fields that applies: the rule of the
-- benchmark itself, else the round's default (benchmark '*'); of those, the one of the same scenario,
-- else, for an Interactive result, the Server rule (LoadGen runs Interactive as a Server run, and the
-- checker reads its `effective_scenario`); of those, the latest whose round_from is not after the
-- round. counts: tokens | samples | latency; null when no rule reaches the round (before v4.1), and
-- for a model no benchmark name matches: the default is for the benchmarks the round's checker knows
-- without a rule of their own, and a new model may count tokens (an unmatched llama5-900b is
-- 'unchecked' and named by drift, never "corrected" from Tokens/s to Samples/s).
-- rule_text: the rule in words, for the note of every row it checks (written once here, not per row).
-- The final table's unit label comes from another dictionary of the final-report tool and is
-- checked against this (stg_results, unit_verdict).
WITH keys AS (
    SELECT DISTINCT r.round, r.model, r.used_model, r.scenario, b.benchmark
    FROM results AS r
    LEFT JOIN base_benchmark_names AS b
        ON b.model IS NOT DISTINCT FROM r.model AND b.used_model IS NOT DISTINCT FROM r.used_model
    WHERE r.metric = 'performance'
),
candidates AS (
    SELECT
        k.round, k.model, k.used_model, k.scenario, k.benchmark,
        f.counts, f.loadgen_field, f.source, f.round_from,
        [(f.benchmark <> '*')::INTEGER, (f.scenario = k.scenario)::INTEGER, round_order(f.round_from)] AS precedence
    FROM keys AS k
    JOIN ref_result_fields AS f
      ON  k.benchmark IS NOT NULL AND f.benchmark IN (k.benchmark, '*')
      AND (f.scenario = k.scenario OR (k.scenario = 'Interactive' AND f.scenario = 'Server'))
      AND round_order(f.round_from) <= round_order(k.round)
)
SELECT
    round, model, used_model, scenario, benchmark,
    arg_max(counts, precedence) AS counts,
    arg_max(loadgen_field, precedence) AS loadgen_field,
    arg_max(source, precedence) AS source,
    arg_max(round_from, precedence) AS round_from,
    format('the {} submission checker reads LoadGen''s {} for {} {} ({})', round,
           arg_max(loadgen_field, precedence), benchmark, scenario, arg_max(source, precedence)) AS rule_text,
    rule_text || ', as labelled' AS note_as_labelled
FROM candidates
GROUP BY round, model, used_model, scenario, benchmark
