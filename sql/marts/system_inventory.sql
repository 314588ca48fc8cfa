-- What hardware and software stand behind each verified result: host CPU, memory, interconnect,
-- cooling and framework, as the submitter's system description publishes them?
-- One row per verified performance result (verified_results) whose system description was loaded
-- (mlperf-wh trees): systems/<platform>.json of the result's run folder. Text as published;
-- host_memory_gb and accelerator_memory_gb read from '2 TB', '180 GB' (TB = 1000 GB; null when the
-- field is not one number and a unit). host_cores_per_node = host_processors_per_node x
-- host_processor_core_count.
SELECT
    v.round, v.submitter, v.system, v.result_id, v.accelerator, v.total_accelerators,
    v.benchmark, v.scenario, v.value, v.units,
    s.number_of_nodes, s.host_processor_model_name, s.host_processors_per_node,
    s.host_processor_core_count,
    s.host_processors_per_node * s.host_processor_core_count AS host_cores_per_node,
    s.host_memory_capacity, s.host_memory_gb, s.host_networking, s.host_networking_topology,
    s.accelerator_model_name, s.accelerators_per_node, s.accelerator_memory_capacity,
    s.accelerator_memory_gb, s.accelerator_interconnect, s.accelerator_interconnect_topology,
    s.accelerator_host_interconnect, s.cooling, s.framework, s.other_software_stack,
    s.operating_system, s.system_path
FROM verified_results AS v
JOIN stg_run_results AS r
  ON  r.source_id = v.source_id AND r.entry_id = v.entry_id AND r.model = v.model
  AND r.used_model IS NOT DISTINCT FROM v.used_model AND r.scenario = v.scenario AND r.units = v.units
JOIN systems AS s ON s.round = r.round AND s.system_path = r.system_path
