-- What hardware and software stand behind each verified result: host CPU, memory, interconnect,
-- cooling and framework, as the submitter's system description publishes them?
-- One row per verified performance result (as verified_results) whose system description was loaded
-- (mlperf-wh trees): systems/<platform>.json of the result's run folder (stg_results.system_path). Text as published;
-- host_memory_gb and accelerator_memory_gb read from '2 TB', '180 GB' (TB = 1000 GB; null when the
-- field is not one number and a unit). host_cores_per_node = host_processors_per_node x
-- host_processor_core_count.
SELECT
    v.round, v.submitter, v.system, v.result_id, v.run_path, v.accelerator, v.total_accelerators AS accelerator_count,
    v.benchmark, v.scenario, v.value AS result, v.units AS result_unit,
    s.number_of_nodes, s.host_processor_model_name, s.host_processors_per_node,
    s.host_processor_core_count,
    s.host_processors_per_node * s.host_processor_core_count AS host_cores_per_node,
    s.host_memory_capacity, s.host_memory_gb, s.host_networking, s.host_networking_topology,
    s.accelerator_model_name, s.accelerators_per_node, s.accelerator_memory_capacity,
    s.accelerator_memory_gb, s.accelerator_interconnect, s.accelerator_interconnect_topology,
    s.accelerator_host_interconnect, s.cooling, s.framework, s.other_software_stack,
    s.operating_system, s.system_path
FROM stg_results AS v
JOIN stg_systems AS s ON s.round = v.round AND s.system_path = v.system_path
WHERE v.metric = 'performance' AND v.verification = 'verified'
