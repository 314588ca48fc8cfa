-- May this result enter an answer a buyer ranks or reads as a figure, and if not, why not?
-- The one rule every ranked answer reads: the leaderboard's ranks, the best per accelerator, per rack
-- and per kW (token_economics, rack_throughput, accelerator_comparison), procurement-grade software
-- gains, generation speedups and scaling pairs, the claim audit's figures, the run report and the
-- report page (docs/definitions.md section 1c).
-- One row per performance row (stg_results).
-- findings: every anomaly rule that names the row: its own (int_row_findings) and the pair findings
--   that name it (int_pair_findings: a superlinear scaling pair names its larger system, an
--   implausible gain its newer result), sorted; pair_findings: the pair rules with the other result,
--   "scaling_superlinear (with 6.0-0054)", or for another side without a result_id (rebuilt from a
--   tree) its submitter and platform, "scaling_superlinear (with DellEMC DSS8440_T4x12_TRT)".
-- disqualifying_findings: the findings the row's own evidence shows (int_row_findings evidence 'own':
--   its run summary prints another number, its entry counts other accelerators, its own SingleStream
--   run outruns its Offline run, its source quarantined it): the figure contradicts itself.
-- questioning_findings: the findings that rest on other results (out_of_range against the peers'
--   median, a scaling pair or a gain with another result): a result is not wrong because another
--   system ran slower (the v1.1 A100 PCIe x4 dlrm Server run of Dell, 1,130,667.56, was dropped for a
--   pair with a 40 GB system while the variants were merged), so they are listed and shown beside the
--   figure (questioned_because) and never take it out of an answer.
-- stale, stale_reason: the source's latest table quarantined the row, which shows its last good value
--   (stg_results); int_row_findings names it (stale_value), so it is listed, never procurement grade.
-- comparable: the row takes part in comparisons as its hardware (stg_results.not_comparable_because
--   null: not run without its accelerator, not 0 accelerators counted, not an inference).
-- usable: comparable and no disqualifying finding: a figure that may be set against another.
-- procurement_grade: usable and verified (closed division, available, audited).
-- excluded_because: why a row is not procurement grade, first that applies: its verification (open
--   division, preview, research, an unofficial table), why it does not compare, its disqualifying
--   findings. Null for a procurement-grade row.
-- questioned_because: the questioning findings, with the other result of each pair, in the rules'
--   order below; null when none.
-- Reason codes: each reason above as a stable code, so that a count by reason never splits by the
--   result IDs, names and notes its words quote. This is the one place they are written; every mart
--   reads them from here (sql/marts/_columns.toml lists them).
--   reason_codes: every reason the row is not procurement grade, in this order: its verification
--   ('open_division', 'preview', 'rdi', 'unofficial': an unofficial table), why it does not compare
--   ('ran_without_accelerator', 'zero_accelerators_counted', 'inferred_result': the conditions of
--   stg_results.not_comparable_because, in its order), then 'finding_' and each disqualifying finding
--   in the rules' order; [] for a procurement-grade row. reason_code: the first, the code of
--   excluded_because (whose words follow from it); null for a procurement-grade row.
--   questioned_codes: the questioning rules, each once, in the rules' order ('out_of_range',
--   'scaling_superlinear', 'implausible_gain'); questioned_code: the first; [] and null when none.
--   The rules' order is docs/definitions.md section 6's table: a row's first finding is then the same
--   whatever else names it (a rule not in the list sorts after those that are).
WITH rule_order AS (
    SELECT ['unit_suspect', 'accelerator_count_disagrees', 'offline_below_singlestream', 'out_of_range',
            'stale_value', 'scaling_superlinear', 'implausible_gain'] AS rules
),
own AS (
    SELECT source_id, record_no, list(DISTINCT rule ORDER BY rule) AS rules,
           list(DISTINCT rule ORDER BY rule) FILTER (WHERE evidence = 'own') AS disqualifying,
           list(DISTINCT rule ORDER BY rule) FILTER (WHERE evidence <> 'own') AS questioning
    FROM int_row_findings GROUP BY ALL
),
named AS (
    -- the row a pair finding names by its key: a row rebuilt from a tree (no result_id) is named too
    SELECT source_id, record_no,
           list(DISTINCT rule ORDER BY rule) AS rules,
           list(DISTINCT {'rule': rule, 'described': format('{} (with {})', rule, related)}) AS described
    FROM int_pair_findings
    GROUP BY ALL
),
judged AS (
    SELECT
        r.source_id, r.record_no, r.round, r.result_id, r.submitter, r.system, r.accelerator, r.cpu, r.hardware,
        r.hardware_kind, r.benchmark, r.scenario, r.units, r.verification, r.division, r.availability,
        r.inferred, r.inferred_cause, r.not_comparable_because, r.stale, r.stale_reason,
        list_sort(list_distinct(list_concat(coalesce(o.rules, []), coalesce(n.rules, [])))) AS findings,
        coalesce(o.disqualifying, []) AS disqualifying_findings,
        list_sort(list_transform(coalesce(n.described, []), lambda d: d.described)) AS pair_findings,
        r.not_comparable_because IS NULL AS comparable,
        -- each questioning finding {rule, described} in the rules' order, then by its words
        list_sort(list_transform(
            list_concat(list_transform(coalesce(o.questioning, []), lambda f: {'rule': f, 'described': f}),
                        coalesce(n.described, [])),
            lambda q: {'at': coalesce(list_position(ro.rules, q.rule), len(ro.rules) + 1),
                       'rule': q.rule, 'described': q.described})) AS questioning,
        list_transform(list_sort(list_transform(coalesce(o.disqualifying, []),
            lambda f: {'at': coalesce(list_position(ro.rules, f), len(ro.rules) + 1), 'rule': f})),
            lambda f: f.rule) AS disqualifying_in_order,
        list_filter([
            CASE r.verification WHEN 'verified' THEN NULL WHEN 'open' THEN 'open_division'
                 WHEN 'preview' THEN 'preview' WHEN 'rdi' THEN 'rdi' ELSE 'unofficial' END,
            CASE WHEN r.accelerator_absent IS NOT NULL THEN 'ran_without_accelerator' END,
            CASE WHEN r.accelerator IS NOT NULL AND r.total_accelerators = 0 THEN 'zero_accelerators_counted' END,
            CASE WHEN r.inferred_result THEN 'inferred_result' END], lambda c: c IS NOT NULL)
            || list_transform(disqualifying_in_order, lambda f: 'finding_' || f) AS reason_codes
    FROM stg_results AS r
    CROSS JOIN rule_order AS ro
    LEFT JOIN own AS o USING (source_id, record_no)
    LEFT JOIN named AS n USING (source_id, record_no)
    WHERE r.metric = 'performance'
)
SELECT
    * EXCLUDE (questioning, disqualifying_in_order, reason_codes),
    comparable AND len(disqualifying_findings) = 0 AS usable,
    verification = 'verified' AND comparable AND len(disqualifying_findings) = 0 AS procurement_grade,
    reason_codes[1] AS reason_code,
    reason_codes,
    CASE
        WHEN reason_code = 'open_division' THEN 'open division (the rules let it change the model or the run)'
        WHEN reason_code = 'preview' THEN 'preview (not available to buy in its round)'
        WHEN reason_code = 'rdi' THEN 'research, development or internal (not for sale)'
        WHEN reason_code = 'unofficial' THEN 'unofficial table (not reviewed by MLCommons)'
        WHEN reason_code IN ('ran_without_accelerator', 'zero_accelerators_counted', 'inferred_result')
            THEN not_comparable_because
        WHEN reason_code LIKE 'finding_%' THEN 'anomaly finding: ' || array_to_string(disqualifying_in_order, ', ')
    END AS excluded_because,
    list_transform(list_sort(list_distinct(list_transform(questioning, lambda q: {'at': q.at, 'rule': q.rule}))),
                   lambda q: q.rule) AS questioned_codes,
    questioned_codes[1] AS questioned_code,
    CASE WHEN len(questioning) > 0
         THEN 'questioned by other results: '
              || array_to_string(list_transform(questioning, lambda q: q.described), ', ') END AS questioned_because
FROM judged
