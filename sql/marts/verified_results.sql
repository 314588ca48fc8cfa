-- Which results are audited, closed-division and commercially available (verification = 'verified')?
-- Performance rows only, with canonical accelerator, accelerator_count and result_per_accelerator
-- (result / accelerator_count, throughput units only). Preview, RDI, open-division and unofficial
-- rows never appear here. result_unit is the checked unit (stg_results); a suspect row stays here with its
-- unit_verdict and unit_note; findings lists the anomaly rules that name a row (its own and the pair
-- findings that blame it; see `anomalies`). stale: the source's latest table quarantined the row; result is
-- its last good value (finding stale_value). Either leaves the row out of every procurement-grade answer:
-- procurement_grade, excluded_because and its code reason_code are the one eligibility rule's
-- (int_result_eligibility).
-- inferred is MLCommons' flag as published; inferred_cause reads it as the checker sets it.
SELECT
    round, suite, submitter, system, platform, result_id, entry_id,
    benchmark, benchmark_family, accuracy_target, model, used_model, scenario, value AS result, units AS result_unit,
    published_units AS published_unit, unit_verdict, unit_note, higher_is_better,
    accelerator, accelerator_raw, vendor, family, generation,
    accelerators_per_node, nodes, total_accelerators AS accelerator_count, value_per_accelerator AS result_per_accelerator,
    partition, partition_fraction, value_per_partition AS result_per_partition,
    software, stack, weight_data_types, inferred, inferred_cause, inferred_result, not_comparable_because,
    repeats_lower_target, verification, stale, stale_reason, e.findings, e.procurement_grade, e.reason_code, e.excluded_because,
    source_id
FROM stg_results
JOIN (SELECT source_id, record_no, findings, procurement_grade, reason_code, excluded_because
      FROM int_result_eligibility) AS e
    USING (source_id, record_no)
WHERE metric = 'performance' AND verification = 'verified'
