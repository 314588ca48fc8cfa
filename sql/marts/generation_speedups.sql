-- How much faster is a part than its predecessors of the same product line, segment and form factor,
-- on the same benchmark and scenario, in the same round, at the same scale?
-- Pairs: hardware_new succeeds hardware_base in the reference tables' predecessor chain
-- (stg_successions: B300 -> B200 -> H200 SXM -> H100 SXM; GB300 -> GB200; MI355X -> MI325X -> MI300X;
-- Xeon 6980P -> Xeon Platinum 8592+; generations_apart = steps along it), both of one segment
-- (datacenter, workstation, edge, client) and one form factor, at the same hardware count. A pair
-- across segments or form factors never appears: a datacenter GPU "over" a gaming card, or an NVL72
-- tray over a PCIe card, says nothing a buyer can use.
-- Each side is the best verified-or-preview closed-division result of that hardware at that scale
-- (int_best_results, best_of_hardware). hardware: an accelerator, or the processor of a CPU-only system.
-- speedup = value_new / value_base for throughput, value_base / value_new for latency.
-- newer_is_slower: speedup < 1; kept and flagged, never hidden.
-- procurement_grade is true only when both sides are verified and neither has an anomaly finding
-- (int_row_findings); preview rows take part and are labelled.
WITH best AS (
    SELECT b.*, h.vendor, h.generation, h.segment, h.form_factor, h.line
    FROM int_best_results AS b
    JOIN stg_hardware AS h USING (hardware, hardware_kind)
    WHERE b.best_of_hardware AND h.line IS NOT NULL
)
SELECT
    n.round, n.benchmark, n.scenario, n.units, n.hardware_count, n.total_accelerators,
    n.hardware_kind, n.vendor, n.line, n.segment, n.form_factor,
    n.hardware AS hardware_new, b.hardware AS hardware_base,
    n.accelerator AS accelerator_new, b.accelerator AS accelerator_base,
    s.steps AS generations_apart,
    n.generation AS generation_new, b.generation AS generation_base,
    n.value AS value_new, b.value AS value_base,
    CASE WHEN n.higher_is_better THEN n.value / b.value ELSE b.value / n.value END AS speedup,
    CASE WHEN n.higher_is_better THEN n.value < b.value ELSE n.value > b.value END AS newer_is_slower,
    n.submitter AS submitter_new, b.submitter AS submitter_base,
    n.result_id AS result_id_new, b.result_id AS result_id_base,
    n.verification AS verification_new, b.verification AS verification_base,
    (n.verification = 'verified' AND b.verification = 'verified' AND NOT n.has_finding AND NOT b.has_finding)
        AS procurement_grade
FROM best AS n
JOIN stg_successions AS s ON s.hardware = n.hardware
JOIN best AS b
  ON  b.hardware = s.ancestor AND b.round = n.round AND b.benchmark = n.benchmark AND b.scenario = n.scenario
  AND b.units = n.units AND b.hardware_count = n.hardware_count
  AND b.segment = n.segment AND b.form_factor = n.form_factor
