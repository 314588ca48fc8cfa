-- May this result enter an answer a buyer ranks or reads as a figure, and if not, why not?
-- The one rule every ranked answer reads: the leaderboard's ranks, the best per accelerator, per rack
-- and per kW (token_economics, rack_throughput, accelerator_comparison), procurement-grade software
-- gains, generation speedups and scaling pairs, the claim audit's figures, the run report and the
-- report page (docs/definitions.md section 1c).
-- One row per performance row (stg_results).
-- findings: every anomaly rule that names the row: its own (int_row_findings) and the pair findings
--   that blame it (int_pair_findings, by the row's key source_id, record_no: a superlinear scaling pair
--   blames its larger system, an implausible gain its newer result), sorted; pair_findings: the pair
--   rules with the other result, "scaling_superlinear (with 6.0-0054)", or for another side without a
--   result_id (rebuilt from a tree) its submitter and platform,
--   "scaling_superlinear (with DellEMC DSS8440_T4x12_TRT)".
-- stale, stale_reason: the source's latest table quarantined the row, which shows its last good value
--   (stg_results); int_row_findings names it (stale_value), so it is listed, never procurement grade.
-- comparable: the row takes part in comparisons as its hardware (stg_results.not_comparable_because
--   null: not run without its accelerator, not 0 accelerators counted, not an inference).
-- usable: comparable and no finding: a figure that may be set against another.
-- procurement_grade: usable and verified (closed division, available, audited).
-- excluded_because: why a row is not procurement grade, first that applies: its verification (open
--   division, preview, research, an unofficial table), why it does not compare, its findings. Null
--   for a procurement-grade row.
WITH own AS (
    SELECT source_id, record_no, list(DISTINCT rule ORDER BY rule) AS rules
    FROM int_row_findings GROUP BY ALL
),
blamed AS (
    -- the row a pair finding names by its key: a row rebuilt from a tree (no result_id) is blamed too
    SELECT source_id, record_no,
           list(DISTINCT rule ORDER BY rule) AS rules,
           list(DISTINCT format('{} (with {})', rule, related)) AS described
    FROM int_pair_findings
    GROUP BY ALL
),
judged AS (
    SELECT
        r.source_id, r.record_no, r.round, r.result_id, r.submitter, r.system, r.accelerator, r.cpu, r.hardware,
        r.hardware_kind, r.benchmark, r.scenario, r.units, r.verification, r.division, r.availability,
        r.inferred, r.inferred_cause, r.not_comparable_because, r.stale, r.stale_reason,
        list_sort(list_distinct(list_concat(coalesce(o.rules, []), coalesce(b.rules, [])))) AS findings,
        coalesce(o.rules, []) AS own_findings,
        coalesce(list_sort(b.described), []) AS pair_findings,
        r.not_comparable_because IS NULL AS comparable
    FROM stg_results AS r
    LEFT JOIN own AS o USING (source_id, record_no)
    LEFT JOIN blamed AS b USING (source_id, record_no)
    WHERE r.metric = 'performance'
)
SELECT
    * EXCLUDE (own_findings),
    comparable AND len(findings) = 0 AS usable,
    verification = 'verified' AND comparable AND len(findings) = 0 AS procurement_grade,
    CASE
        WHEN verification = 'open' THEN 'open division (the rules let it change the model or the run)'
        WHEN verification = 'preview' THEN 'preview (not available to buy in its round)'
        WHEN verification = 'rdi' THEN 'research, development or internal (not for sale)'
        WHEN verification <> 'verified' THEN 'unofficial table (not reviewed by MLCommons)'
        WHEN NOT comparable THEN not_comparable_because
        WHEN len(findings) > 0
            THEN 'anomaly finding: ' || array_to_string(list_concat(own_findings, pair_findings), ', ')
    END AS excluded_because
FROM judged
