-- Which result entries does each claim cite, which side of the claim does each stand for, and what,
-- if anything, keeps it from standing behind the claim?
-- One row per (claim, cited result id), `position` in the order cited. An entry is the performance
-- rows sharing one result id (one system; its rows span benchmarks and scenarios).
-- role, by the claim's kind:
--   generation_speedup: 'new' on the claim's accelerator, 'base' on baseline_accelerator;
--   scaling_efficiency, scale_speedup: 'new' at total_accelerators, 'base' at baseline_total_accelerators;
--   software_gain: 'new' in the claim's round, 'base' in round_from (absent: any earlier round);
--   absolute: 'new'.
-- problem: the first that applies, else null: the id is in no loaded round (when the claim's round is
--   not loaded, one text for all its cited entries in no loaded round); the entry is from a round
--   the claim does not name; it is on another accelerator, or at another accelerator count, than the
--   claim names; another submitter than the claim names (for a generation claim only the new side
--   must be the claim's submitter's); no row of the claim's benchmark, scenario (when named) and
--   direction (throughput: higher-is-better units; latency: lower-is-better units).
WITH cited AS (
    SELECT c.id AS claim_id, c.kind, c.round, c.round_from, c.benchmark, c.scenario, c.direction,
           c.accelerator, c.baseline_accelerator, c.total_accelerators, c.baseline_total_accelerators,
           c.submitter,
           round_order(c.round) AS claim_round_order,
           unnest(c.cited_result_ids) AS result_id,
           generate_subscripts(c.cited_result_ids, 1) AS position
    FROM stg_claims AS c
),
entries AS (
    SELECT result_id, round, any_value(round_order) AS round_order,
           any_value(coalesce(accelerator, accelerator_raw)) AS accelerator,
           any_value(total_accelerators) AS total_accelerators, any_value(submitter) AS submitter
    FROM int_cited_results
    GROUP BY result_id, round
),
located AS (
    -- an id names one entry; should it ever occur in two rounds, take the one the claim names
    SELECT c.*, e.round AS entry_round, e.round_order AS entry_round_order,
           e.accelerator AS entry_accelerator, e.total_accelerators AS entry_total_accelerators,
           e.submitter AS entry_submitter
    FROM cited AS c
    LEFT JOIN entries AS e ON e.result_id = c.result_id
    QUALIFY row_number() OVER (PARTITION BY c.claim_id, c.position
                               ORDER BY coalesce(e.round IN (c.round, c.round_from), false) DESC,
                                        e.round_order DESC) = 1
),
roled AS (
    SELECT *,
        CASE
            WHEN kind = 'generation_speedup' THEN
                CASE WHEN entry_accelerator = accelerator THEN 'new'
                     WHEN entry_accelerator = baseline_accelerator THEN 'base' END
            WHEN kind IN ('scaling_efficiency', 'scale_speedup') THEN
                CASE WHEN entry_total_accelerators = total_accelerators THEN 'new'
                     WHEN entry_total_accelerators = baseline_total_accelerators THEN 'base' END
            WHEN kind = 'software_gain' THEN
                CASE WHEN entry_round = round THEN 'new'
                     WHEN entry_round = round_from
                          OR (round_from IS NULL AND entry_round_order < claim_round_order) THEN 'base' END
            ELSE 'new'
        END AS role,
        EXISTS (
            SELECT 1 FROM int_cited_results AS p
            WHERE p.result_id = located.result_id AND p.round = located.entry_round
              AND p.benchmark = located.benchmark
              AND (located.scenario IS NULL OR p.scenario = located.scenario)
              AND p.higher_is_better = (located.direction = 'throughput')
        ) AS has_claimed_row
    FROM located
)
SELECT
    claim_id, position, result_id, role, entry_round, entry_accelerator, entry_total_accelerators,
    entry_submitter,
    CASE
        WHEN entry_round IS NULL AND round NOT IN (SELECT round FROM stg_sources WHERE rows_loaded > 0) THEN
            -- said once for every entry it keeps out (int_claim_as_cited says each problem once)
            format('round {} is not loaded (cited: {})', round, string_agg(result_id, ', ')
                   FILTER (WHERE entry_round IS NULL) OVER (PARTITION BY claim_id ORDER BY position
                                                            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
        WHEN entry_round IS NULL THEN
            format('cited entry {} is in no loaded round', result_id)
        WHEN kind = 'software_gain' AND role IS NULL THEN
            format('cited entry {} is from round {}, the claim compares {} with {}', result_id,
                   entry_round, coalesce(round_from, 'an earlier round'), round)
        WHEN kind <> 'software_gain' AND entry_round <> round THEN
            format('cited entry {} is from round {}, the claim is about {}', result_id, entry_round, round)
        WHEN kind = 'generation_speedup' AND role IS NULL THEN
            format('cited entry {} is on {}, the claim compares {} with {}', result_id,
                   coalesce(entry_accelerator, 'no known accelerator'), accelerator, baseline_accelerator)
        WHEN kind <> 'generation_speedup' AND accelerator IS NOT NULL
             AND entry_accelerator IS DISTINCT FROM accelerator THEN
            format('cited entry {} is on {}, the claim is about {}', result_id,
                   coalesce(entry_accelerator, 'no known accelerator'), accelerator)
        WHEN kind IN ('scaling_efficiency', 'scale_speedup') AND role IS NULL THEN
            format('cited entry {} has {} accelerators, the claim compares {} with {}', result_id,
                   entry_total_accelerators, baseline_total_accelerators, total_accelerators)
        WHEN kind IN ('generation_speedup', 'absolute') AND total_accelerators IS NOT NULL
             AND entry_total_accelerators IS DISTINCT FROM total_accelerators THEN
            format('cited entry {} has {} accelerators, the claim says {}', result_id,
                   entry_total_accelerators, total_accelerators)
        WHEN submitter IS NOT NULL AND entry_submitter IS DISTINCT FROM submitter
             AND (kind <> 'generation_speedup' OR role = 'new') THEN
            format('cited entry {} was submitted by {}, the claim names {}', result_id, entry_submitter,
                   submitter)
        WHEN NOT has_claimed_row THEN
            format('cited entry {} has no {}{} {} result', result_id, benchmark,
                   CASE WHEN scenario IS NULL THEN '' ELSE ' ' || scenario END, direction)
    END AS problem
FROM roled
