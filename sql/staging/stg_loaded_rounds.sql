-- Which official rounds are loaded, and when was each published?
-- One row per round with rows loaded from an official source, with its publication date from the
-- round table (`rounds`: the registry's date, or the day the watcher first saw a round the registry
-- does not list). published_on is null only for a round loaded under a name in neither.
SELECT s.round, r.published_on, r.found_by
FROM (SELECT DISTINCT round FROM sources WHERE origin = 'official' AND rows_loaded > 0) AS s
LEFT JOIN rounds AS r ON r.round = s.round
