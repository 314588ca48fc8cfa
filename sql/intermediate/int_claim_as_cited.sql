-- What does each claim recompute to from exactly the result entries it cites?
-- One row per claim that cites entries (cited_result_ids not empty). Rows used: the cited entries' performance rows of the claim's benchmark,
-- scenario (when named) and direction (int_claim_citations); per side and scenario the best row, shaped
-- as int_claim_audit's rows_used (with its key source_id, record_no and its label).
-- Per scenario in which both sides have a row in the same units:
--   generation_speedup, scale_speedup, software_gain at one scale: throughput new / base,
--     latency base / new (how many times better the new side is);
--   scaling_efficiency: (new / base) / (accelerators_new / accelerators_base); 1.0 is linear;
--   software_gain with basis per_accelerator, or cited at two scales: (new / accelerators_new)
--     / (base / accelerators_base), throughput only;
--   absolute: the cited row's value.
-- No scenario named: the largest figure across scenarios ("up to").
-- citation_problem (null when the figure stands; otherwise recomputed_as_cited is null): every cited
-- entry's problem, else a side with no cited entry or with two, two sides on different accelerators
-- or submitters where the kind compares one system with itself (scaling, scale, software), or no
-- scenario in which both sides have a row.
WITH citations AS (
    SELECT * FROM int_claim_citations
),
entry_problems AS (
    -- each problem once, where it first occurs (a round not loaded is one problem for every entry)
    SELECT claim_id, string_agg(problem, '; ' ORDER BY first_position) AS problems
    FROM (SELECT claim_id, problem, min(position) AS first_position
          FROM citations WHERE problem IS NOT NULL GROUP BY claim_id, problem)
    GROUP BY claim_id
),
sides AS (
    SELECT claim_id,
           list(result_id ORDER BY position) FILTER (WHERE role = 'new') AS new_ids,
           list(result_id ORDER BY position) FILTER (WHERE role = 'base') AS base_ids,
           count(DISTINCT entry_accelerator) AS accelerators,
           count(DISTINCT entry_submitter) AS submitters
    FROM citations GROUP BY claim_id
),
side_problems AS (
    SELECT c.id AS claim_id,
        CASE
            WHEN coalesce(len(s.new_ids), 0) = 0 THEN
                format('no cited entry stands for the new side ({})', CASE c.kind
                    WHEN 'generation_speedup' THEN 'on ' || c.accelerator
                    WHEN 'software_gain' THEN 'in ' || c.round
                    WHEN 'absolute' THEN 'the result'
                    ELSE format('{} accelerators', c.total_accelerators) END)
            WHEN len(s.new_ids) > 1 THEN
                format('cited entries {} all stand for the new side', array_to_string(s.new_ids, ', '))
            WHEN c.kind = 'absolute' THEN NULL
            WHEN coalesce(len(s.base_ids), 0) = 0 THEN
                format('no cited entry stands for the baseline ({})', CASE c.kind
                    WHEN 'generation_speedup' THEN 'on ' || c.baseline_accelerator
                    WHEN 'software_gain' THEN 'in ' || coalesce(c.round_from, 'an earlier round')
                    ELSE format('{} accelerators', c.baseline_total_accelerators) END)
            WHEN len(s.base_ids) > 1 THEN
                format('cited entries {} all stand for the baseline', array_to_string(s.base_ids, ', '))
            WHEN c.kind <> 'generation_speedup' AND (s.accelerators > 1 OR s.submitters > 1) THEN
                format('a {} compares one submitter''s accelerator with itself; the cited entries are '
                       'on {} accelerator(s) from {} submitter(s)', c.kind, s.accelerators, s.submitters)
        END AS problem
    FROM stg_claims AS c
    JOIN sides AS s ON s.claim_id = c.id
),
cited_rows AS (
    SELECT ci.claim_id, ci.role, p.*
    FROM citations AS ci
    JOIN stg_claims AS c ON c.id = ci.claim_id
    JOIN int_cited_results AS p
      ON  p.result_id = ci.result_id AND p.round = ci.entry_round AND p.benchmark = c.benchmark
      AND (c.scenario IS NULL OR p.scenario = c.scenario)
      AND p.higher_is_better = (c.direction = 'throughput')
    WHERE ci.problem IS NULL AND ci.role IS NOT NULL
    QUALIFY row_number() OVER (
        PARTITION BY ci.claim_id, ci.role, p.scenario
        ORDER BY CASE WHEN p.higher_is_better THEN -p.value ELSE p.value END, p.entry_id) = 1
),
figures AS (
    SELECT
        c.id AS claim_id, n.scenario,
        CASE
            WHEN c.kind = 'absolute' THEN n.value
            WHEN c.kind = 'scaling_efficiency' THEN
                (n.value / b.value) / (n.total_accelerators::DOUBLE / b.total_accelerators)
            WHEN c.kind = 'software_gain'
                 AND (c.basis = 'per_accelerator' OR n.total_accelerators <> b.total_accelerators) THEN
                n.value_per_accelerator / b.value_per_accelerator
            WHEN n.higher_is_better THEN n.value / b.value
            ELSE b.value / n.value
        END AS figure,
        {'role': 'new', 'result_id': n.result_id, 'submitter': n.submitter, 'round': n.round,
         'accelerator': n.accelerator, 'accelerator_count': n.total_accelerators,
         'scenario': n.scenario, 'result': n.value, 'result_unit': n.units,
         'verification': n.verification, 'label': coalesce(n.result_id, n.submitter || ' ' || n.platform),
         'source_id': n.source_id, 'record_no': n.record_no} AS new_row,
        CASE WHEN b.result_id IS NOT NULL THEN
        {'role': 'base', 'result_id': b.result_id, 'submitter': b.submitter, 'round': b.round,
         'accelerator': b.accelerator, 'accelerator_count': b.total_accelerators,
         'scenario': b.scenario, 'result': b.value, 'result_unit': b.units,
         'verification': b.verification, 'label': coalesce(b.result_id, b.submitter || ' ' || b.platform),
         'source_id': b.source_id, 'record_no': b.record_no} END AS base_row
    FROM stg_claims AS c
    JOIN cited_rows AS n ON n.claim_id = c.id AND n.role = 'new'
    LEFT JOIN cited_rows AS b
      ON b.claim_id = c.id AND b.role = 'base' AND b.scenario = n.scenario AND b.units = n.units
    WHERE c.kind = 'absolute' OR b.result_id IS NOT NULL
),
best_figure AS (
    SELECT * FROM figures WHERE figure IS NOT NULL
    QUALIFY row_number() OVER (PARTITION BY claim_id ORDER BY figure DESC, scenario) = 1
),
judged AS (
    SELECT c.id AS claim_id,
        coalesce(e.problems, sp.problem,
                 CASE WHEN f.claim_id IS NULL THEN
                     format('the cited entries share no {}{} {} result{}', c.benchmark,
                            CASE WHEN c.scenario IS NULL THEN '' ELSE ' ' || c.scenario END, c.direction,
                            CASE WHEN c.kind = 'absolute' THEN '' ELSE ' in one scenario' END) END)
            AS citation_problem,
        f.figure, f.scenario, f.new_row, f.base_row
    FROM stg_claims AS c
    LEFT JOIN entry_problems AS e ON e.claim_id = c.id
    LEFT JOIN side_problems AS sp ON sp.claim_id = c.id
    LEFT JOIN best_figure AS f ON f.claim_id = c.id
    WHERE len(c.cited_result_ids) > 0
)
SELECT
    claim_id, citation_problem,
    CASE WHEN citation_problem IS NULL THEN figure END AS recomputed_as_cited,
    CASE WHEN citation_problem IS NULL THEN scenario END AS as_cited_scenario,
    CASE WHEN citation_problem IS NULL THEN new_row END AS cited_new_row,
    CASE WHEN citation_problem IS NULL THEN base_row END AS cited_base_row,
    CASE WHEN citation_problem IS NULL THEN list_filter([new_row, base_row], lambda r: r IS NOT NULL)
         ELSE [] END AS rows_as_cited
FROM judged
