-- How do the accelerators of one round compare on one benchmark and scenario, side by side?
-- (MI355X against B200 per GPU on llama2-70b Server in v6.0, say.)
-- One row per (round, benchmark, scenario, throughput unit, accelerator) with a procurement-grade result
-- (int_token_economics.procurement_grade: verified, closed division, available, no anomaly finding, a
-- run that compares as its hardware). Three figures, each with the result behind it and its ratio to
-- the best of the round, benchmark and scenario (1.0 = the best; 0.5 = half of it):
--   per accelerator: the accelerator's best throughput / accelerator_count, at any size
--     (throughput_per_accelerator, result_id_per_accelerator, accelerator_count_per_accelerator);
--     tokens_per_second_per_accelerator where tokens are known; rank_per_accelerator: 1 = the most;
--   per rack: as rack_throughput picks it: a measured rack when the accelerator has one, else the best
--     estimate from whole servers (measured_rack, rack_basis); ratio_to_best_per_rack is taken within
--     the same measured_rack, so an estimate is never set against a measured rack; null for an estimate
--     from less than one server;
--   at the same scale: same_scale_count is the accelerator count at which the most accelerators of the
--     benchmark and scenario have a result (ties: the larger count); each accelerator's best system
--     throughput at that count (throughput_same_scale, result_id_same_scale) and its ratio to the best
--     at that count; null for an accelerator with no result at that count.
-- A partition of a device (MIG 1g.10gb: int_token_economics.partition) is never set beside whole
-- devices here.
-- A mixed cluster (several accelerator models in one system, accelerator 'MI300X + MI325X + MI355X';
-- mixed_cluster) is listed, never ranked per accelerator nor the best a ratio is taken to.
-- Ties (two entries with the same figure: v6.0 dlrm-v3 Server, three B200 x8 at 1250.875 a GPU) go to
-- the smallest result ID, so a rebuild names the same entry whatever order its rows come in.
WITH graded AS (
    SELECT * FROM int_token_economics
    WHERE procurement_grade AND throughput_per_accelerator IS NOT NULL AND partition IS NULL
),
per_accelerator AS (
    SELECT round, benchmark, scenario, throughput_unit, accelerator,
           {'throughput_per_accelerator': throughput_per_accelerator,
            'tokens_per_second_per_accelerator': tokens_per_second_per_accelerator,
            'result_id': result_id, 'submitter': submitter, 'accelerator_count': total_accelerators} AS best
    FROM graded
    QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, throughput_unit, accelerator
                               ORDER BY throughput_per_accelerator DESC, result_id) = 1
),
per_rack AS (
    SELECT round, benchmark, scenario, throughput_unit, accelerator, measured_rack, rack_basis,
           throughput_per_rack, result_id AS result_id_per_rack
    FROM graded
    WHERE measured_rack OR rack_from_servers
    QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, throughput_unit, accelerator
                               ORDER BY measured_rack DESC, throughput_per_rack DESC, result_id) = 1
),
scales AS (
    SELECT round, benchmark, scenario, throughput_unit,
           arg_max(total_accelerators, [accelerators, total_accelerators]) AS same_scale_count
    FROM (SELECT round, benchmark, scenario, throughput_unit, total_accelerators,
                 count(DISTINCT accelerator) AS accelerators
          FROM graded GROUP BY round, benchmark, scenario, throughput_unit, total_accelerators)
    GROUP BY round, benchmark, scenario, throughput_unit
),
at_scale AS (
    SELECT g.round, g.benchmark, g.scenario, g.throughput_unit, g.accelerator, s.same_scale_count,
           g.throughput AS throughput_same_scale, g.result_id AS result_id_same_scale
    FROM graded AS g
    JOIN scales AS s USING (round, benchmark, scenario, throughput_unit)
    WHERE g.total_accelerators = s.same_scale_count
    QUALIFY row_number() OVER (PARTITION BY g.round, g.benchmark, g.scenario, g.throughput_unit, g.accelerator
                               ORDER BY g.throughput DESC, g.result_id) = 1
),
joined AS (
    SELECT p.round, p.benchmark, p.scenario, p.throughput_unit, p.accelerator, a.vendor,
           p.best.throughput_per_accelerator AS throughput_per_accelerator,
           p.best.tokens_per_second_per_accelerator AS tokens_per_second_per_accelerator,
           p.best.result_id AS result_id_per_accelerator, p.best.submitter AS submitter_per_accelerator,
           p.best.accelerator_count AS accelerator_count_per_accelerator,
           r.throughput_per_rack, r.measured_rack, r.rack_basis, r.result_id_per_rack,
           s.same_scale_count, t.throughput_same_scale, t.result_id_same_scale
    FROM per_accelerator AS p
    LEFT JOIN (SELECT DISTINCT accelerator, vendor FROM stg_accelerators) AS a USING (accelerator)
    LEFT JOIN per_rack AS r USING (round, benchmark, scenario, throughput_unit, accelerator)
    LEFT JOIN scales AS s USING (round, benchmark, scenario, throughput_unit)
    LEFT JOIN at_scale AS t USING (round, benchmark, scenario, throughput_unit, accelerator, same_scale_count)
)
SELECT
    *,
    CASE WHEN NOT mixed_cluster THEN rank() OVER w END AS rank_per_accelerator,
    throughput_per_accelerator / max(CASE WHEN NOT mixed_cluster THEN throughput_per_accelerator END)
        OVER (PARTITION BY round, benchmark, scenario, throughput_unit) AS ratio_to_best_per_accelerator,
    throughput_per_rack / max(throughput_per_rack) OVER (PARTITION BY round, benchmark, scenario, throughput_unit,
                                                                      measured_rack) AS ratio_to_best_per_rack,
    throughput_same_scale / max(throughput_same_scale) OVER (PARTITION BY round, benchmark, scenario, throughput_unit)
        AS ratio_to_best_same_scale
FROM (SELECT *, coalesce(accelerator LIKE '% + %', false) AS mixed_cluster FROM joined)
WINDOW w AS (PARTITION BY round, benchmark, scenario, throughput_unit, mixed_cluster
             ORDER BY throughput_per_accelerator DESC)
