-- Which capacity decisions has the user recorded (`mlperf-wh decisions load`)?
-- One row per decision, as its file states it: the claims it used and excluded, when it was decided
-- and when it is due for review (review_due as written; review_round or review_date derived).
-- measured_by_items: each item of measured_by (a sentence, or own runs' labels and run ids).
SELECT * REPLACE (coalesce(measured_by_items, [measured_by]) AS measured_by_items) FROM decisions
