-- Which results are audited, closed-division and commercially available (verification = 'verified')?
-- Performance rows only, with canonical accelerator, total accelerators and value per accelerator
-- (value / total_accelerators, throughput units only). Preview, RDI, open-division and unofficial
-- rows never appear here.
SELECT
    round, suite, submitter, system, platform, result_id, entry_id,
    benchmark, model, used_model, scenario, value, units, higher_is_better,
    accelerator, accelerator_raw, vendor, family, generation,
    accelerators_per_node, nodes, total_accelerators, value_per_accelerator,
    software, weight_data_types, inferred, verification, source_id
FROM stg_results
WHERE metric = 'performance' AND verification = 'verified'
