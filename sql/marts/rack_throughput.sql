-- Which rack gives the most throughput, per benchmark and scenario, in each round?
-- One row per (round, benchmark, scenario, unit, accelerator, verification): the closed-division
-- result (verified or preview) that best answers "per rack" for that accelerator (int_token_economics:
-- per accelerator x the accelerators one rack holds, in the benchmark's own unit; tokens where they
-- are known), first that exists: a usable row (int_result_eligibility: compares as its hardware, no
-- anomaly finding of its own or of a pair that blames it) before one that is not; then a measured
-- rack (measured_rack: the entry ran a whole rack or more), else the most per rack extrapolated from
-- whole servers (rack_from_servers), else from less than one server; rack_basis says which, in words. Its per-kW figures by basis and the estimated rack
-- power come with it.
-- A partition of a device (MIG: int_token_economics.partition) is left out: a rack of whole devices is
-- what this answers.
-- Measured racks and estimates are ranked apart, like with like: rank_per_rack is the row's rank among
-- the round's procurement-grade rows (int_result_eligibility) of the same benchmark, scenario and unit
-- and the same measured_rack; 1 = the most per rack. An estimate from less than one server (a single
-- GPU x 32) is never ranked (null), nor is a row outside procurement grade (excluded_because says why, reason_code as a code).
-- Tokens per rack beside the published figure per rack, with where the tokens come from
-- (tokens_basis): the table's tokens, its samples x a tokens-per-sample, or the run's own output
-- tokens ('run output tokens': Qwen3-VL, published in samples/s, whose endpoint-harness runs
-- print tokens/s).
-- Answers the capacity question "tokens (or samples) per second per rack": e.g. Qwen3-VL on a GB300
-- NVL72 against a Vera Rubin NVL72 in one round.
WITH racks AS (
    SELECT *
    FROM int_token_economics
    WHERE throughput_per_rack IS NOT NULL AND verification IN ('verified', 'preview') AND partition IS NULL
    QUALIFY row_number() OVER (PARTITION BY round, benchmark, scenario, throughput_unit, accelerator, verification
                               ORDER BY usable DESC, measured_rack DESC, rack_from_servers DESC,
                                        throughput_per_rack DESC, result_id) = 1
),
rankable AS (
    SELECT *, procurement_grade AND (measured_rack OR rack_from_servers) AS ranked
    FROM racks
)
SELECT
    round, benchmark, scenario, throughput_unit, accelerator, verification, result_id, submitter, system,
    total_accelerators AS accelerator_count, accelerators_per_rack, rack_assumption, measured_rack, rack_basis,
    throughput_per_rack, tokens_per_second_per_rack,
    tokens_basis,
    rack_kw_system_estimate, throughput_per_kw_system_estimate, throughput_per_kw_measured, findings,
    procurement_grade, reason_code, excluded_because,
    CASE WHEN ranked
         THEN rank() OVER (PARTITION BY round, benchmark, scenario, throughput_unit, ranked, measured_rack
                           ORDER BY throughput_per_rack DESC) END AS rank_per_rack
FROM rankable
