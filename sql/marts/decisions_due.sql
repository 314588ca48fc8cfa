-- Which capacity decisions are due for review now?
-- Due when the review round has been loaded from an official source, or the review date has passed.
SELECT
    r.*,
    CASE WHEN r.review_round IS NOT NULL THEN 'round ' || r.review_round || ' has been published'
         ELSE 'review date ' || strftime(r.review_date, '%Y-%m-%d') || ' has passed' END AS due_because
FROM decision_records AS r
WHERE (r.review_round IS NOT NULL AND r.review_round IN (
          SELECT round FROM sources WHERE origin = 'official' AND rows_loaded > 0))
   OR (r.review_date IS NOT NULL AND r.review_date <= current_date)
