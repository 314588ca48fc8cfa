-- What throughput per accelerator does each accelerator deliver at each interaction speed, per
-- round and benchmark: the trade-off curve of tokens/s per accelerator against tokens/s per user?
-- One point per verified or preview LLM result of the Offline, Server and Interactive scenarios
-- (as token_economics): x = tokens_per_second_per_user (1 / mean TPOT; null for Offline, whose runs
-- have no per-user pace: the throughput end of the curve), y = tokens_per_second_per_accelerator.
-- Both axes: higher is better. on_frontier: among the verified points of the same round, benchmark
-- and accelerator that have both axes, no other point is at least as good on both and better on
-- one (Pareto-optimal); null for Offline and preview points. preview = true labels results of
-- systems not yet available (never on the frontier).
WITH points AS MATERIALIZED (
    SELECT t.round, t.benchmark, t.accelerator, t.scenario, t.submitter, t.system, t.result_id,
           t.total_accelerators AS accelerator_count, t.tokens_per_second,
           t.tokens_per_second / t.total_accelerators AS tokens_per_second_per_accelerator,
           lp.tokens_per_second_per_user, t.verification,
           t.verification = 'preview' AS preview
    FROM stg_results AS t
    LEFT JOIN int_latency_profile AS lp
      ON lp.source_id = t.source_id AND lp.record_no = t.record_no AND lp.units = t.units
    WHERE t.metric = 'performance' AND t.verification IN ('verified', 'preview') AND t.accelerator IS NOT NULL
      AND t.scenario IN ('Offline', 'Server', 'Interactive')
      AND t.tokens_per_second / t.total_accelerators IS NOT NULL
),
paced AS (
    SELECT * FROM points WHERE tokens_per_second_per_user IS NOT NULL
),
dominated AS (
    SELECT DISTINCT p.round, p.benchmark, p.accelerator, p.result_id, p.scenario
    FROM paced AS p
    JOIN paced AS q
      ON  q.round = p.round AND q.benchmark = p.benchmark AND q.accelerator = p.accelerator
      AND NOT q.preview
      AND q.tokens_per_second_per_user >= p.tokens_per_second_per_user
      AND q.tokens_per_second_per_accelerator >= p.tokens_per_second_per_accelerator
      AND (q.tokens_per_second_per_user > p.tokens_per_second_per_user
           OR q.tokens_per_second_per_accelerator > p.tokens_per_second_per_accelerator)
)
SELECT
    p.*,
    CASE WHEN p.preview OR p.tokens_per_second_per_user IS NULL THEN NULL
         ELSE d.result_id IS NULL END AS on_frontier
FROM points AS p
LEFT JOIN dominated AS d
  ON  d.round = p.round AND d.benchmark = p.benchmark AND d.accelerator = p.accelerator
  AND d.result_id = p.result_id AND d.scenario = p.scenario
