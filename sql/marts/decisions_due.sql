-- Which capacity decisions are due for review now?
-- Due when the named review round has been loaded from an official source; for review_due = 'next'
-- (the seeds' "next MLPerf submission round"), as soon as any official round published after
-- decided_on is loaded, whatever its name (after v6.1 that may be v6.2 or v7.0): review_round is then
-- the first such round by publication date; or when the review date has passed.
WITH next_review AS (
    SELECT d.id, arg_min(l.round, l.published_on) AS round, min(l.published_on) AS published_on
    FROM int_decision_records AS d
    JOIN stg_loaded_rounds AS l ON l.published_on > d.decided_on
    WHERE d.review_due = 'next'
    GROUP BY d.id
)
SELECT
    r.* REPLACE (coalesce(n.round, r.review_round) AS review_round),
    CASE WHEN n.round IS NOT NULL
              THEN 'round ' || n.round || ' (published ' || strftime(n.published_on, '%Y-%m-%d')
                   || ') is the first published after the decision'
         WHEN r.review_round IS NOT NULL THEN 'round ' || r.review_round || ' has been published'
         ELSE 'review date ' || strftime(r.review_date, '%Y-%m-%d') || ' has passed' END AS due_because
FROM int_decision_records AS r
LEFT JOIN next_review AS n ON n.id = r.id
WHERE n.round IS NOT NULL
   OR (r.review_due <> 'next' AND r.review_round IS NOT NULL
       AND r.review_round IN (SELECT round FROM stg_loaded_rounds))
   OR (r.review_date IS NOT NULL AND r.review_date <= current_date)
