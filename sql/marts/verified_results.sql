-- Which results are audited, closed-division and commercially available (verification = 'verified')?
-- Performance rows only, with canonical accelerator, total accelerators and value per accelerator
-- (value / total_accelerators, throughput units only). Preview, RDI, open-division and unofficial
-- rows never appear here. units is the checked unit (stg_results); a suspect row stays here with its
-- unit_verdict and unit_note, and leaves every procurement-grade comparison.
SELECT
    round, suite, submitter, system, platform, result_id, entry_id,
    benchmark, model, used_model, scenario, value, units, published_units, unit_verdict, unit_note,
    higher_is_better,
    accelerator, accelerator_raw, vendor, family, generation,
    accelerators_per_node, nodes, total_accelerators, value_per_accelerator,
    software, weight_data_types, inferred, verification, source_id
FROM stg_results
WHERE metric = 'performance' AND verification = 'verified'
