-- The canonical accelerator of every distinct accelerator name in `results` (as published) and in
-- `own_measurements` (as you named it): one rule for both.
-- The name is cleaned first (trademark marks and "(TM)"/"(R)", count and power-cap annotations such
-- as "(x8)" or "(Power Cap 1000 W)", and every kind of white space run folded to one space); then
-- each part of a multi-accelerator name (parts joined by ",", "and" or "+") takes the accelerator
-- of the first pattern of ref_accelerators (file order) that it matches, case as the pattern says
-- (the macro accelerator_of, written from ref_accelerators at each materialize). accelerator: the
-- parts' canonical names, distinct, sorted and joined with " + " (for example "MI300X + MI325X");
-- null when any part matches no pattern (`mlperf-wh drift` lists those names).
WITH accelerator_names AS (
    SELECT accelerator_raw FROM results WHERE accelerator_raw IS NOT NULL
    UNION
    SELECT accelerator_raw FROM own_measurements
),
cleaned AS (
    SELECT
        accelerator_raw,
        regexp_replace(
            regexp_replace(
                regexp_replace(accelerator_raw, '[™®©]|\((?i:tm|r)\)', '', 'g'),
                '\((?i:x\d+|power cap[^)]*)\)', '', 'g'),
            '[\s\x{00A0}\x{2000}-\x{200B}\x{202F}\x{205F}\x{3000}]+', ' ', 'g') AS cleaned
    FROM accelerator_names
),
parts AS (
    SELECT accelerator_raw, trim(part) AS part
    FROM cleaned, unnest(regexp_split_to_array(cleaned, ',|(?i:\band\b)|\+')) AS t(part)
    WHERE trim(part) <> ''
),
matched AS (
    SELECT accelerator_raw, part, accelerator_of(part) AS accelerator
    FROM parts
)
SELECT
    accelerator_raw,
    CASE WHEN bool_and(accelerator IS NOT NULL)
         THEN string_agg(DISTINCT accelerator, ' + ' ORDER BY accelerator) END AS accelerator
FROM matched
GROUP BY accelerator_raw
UNION ALL
SELECT accelerator_raw, NULL FROM cleaned
WHERE accelerator_raw NOT IN (SELECT accelerator_raw FROM parts)
