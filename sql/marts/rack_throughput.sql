-- Which rack gives the most throughput, per benchmark and scenario, in each round?
-- One row per (round, benchmark, scenario, unit, accelerator, verification): the closed-division
-- result (verified or preview) with the highest throughput per rack (int_token_economics: per accelerator
-- x the accelerators one rack holds, in the benchmark's own unit; tokens where they are known), with
-- how it was measured (rack_basis: a whole rack or more, or extrapolated from a smaller system), its
-- per-kW figures by basis and the estimated rack power. Tokens per rack beside the published figure
-- per rack, with where the tokens come from (tokens_basis): the table's tokens, its samples x a
-- tokens-per-sample, or the run's own output tokens ('run output tokens': Qwen3-VL, published in
-- samples/s, whose endpoint-harness runs print tokens/s). rank_in_round: 1 = the most per rack among
-- the verified racks of the round, benchmark and scenario (preview racks unranked: not shipping).
-- Answers the capacity question "tokens (or samples) per second per rack": e.g. Qwen3-VL on a GB300
-- NVL72 against a Vera Rubin NVL72 in one round.
WITH racks AS (
    SELECT *
    FROM int_token_economics
    WHERE throughput_per_rack IS NOT NULL AND verification IN ('verified', 'preview')
    QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, throughput_unit, accelerator, verification
                               ORDER BY throughput_per_rack DESC, result_id) = 1
)
SELECT
    round, benchmark, scenario, throughput_unit, accelerator, verification, result_id, submitter, system,
    total_accelerators, accelerators_per_rack, rack_assumption, rack_basis,
    throughput_per_rack, tokens_per_second_per_rack,
    tokens_basis,
    rack_kw_system_estimate, throughput_per_kw_system_estimate, throughput_per_kw_measured,
    CASE WHEN verification = 'verified'
         THEN rank() OVER (PARTITION BY round, benchmark, scenario, throughput_unit, verification = 'verified'
                           ORDER BY throughput_per_rack DESC) END AS rank_in_round
FROM racks
