-- The canonical accelerator of every distinct accelerator name in `results` (as published) and in
-- `own_measurements` (as you named it): one rule for both.
-- The name is cleaned first (trademark marks and "(TM)"/"(R)", count and power-cap annotations such
-- as "(x8)" or "(Power Cap 1000 W)", a count glued to a name as in "A30x4", underscores read as
-- spaces so "A100_PCIe_80GB" is "A100 PCIe 80GB", and every kind of white space run folded to one
-- space); then
-- each part of a multi-accelerator name (parts joined by ",", "and" or "+") takes the accelerator
-- of the first row of ref_accelerators (file order) whose pattern it matches, case as the pattern
-- says, and which accepts every variant word the part carries (ref_variant_markers: a memory size, a
-- TDP, a form factor, a tier such as Lite or Pro, an edition, a core count such as MP6, a thermal
-- variant such as CTS; memory, TDP and form by the row's memory_gb, tdp_watts and form_factor, the
-- others by its `accepts`): a part is what was sold, so "Cloud AI 100 PCIe/HHHL Lite" is never the
-- Pro, and a word no row accepts leaves the name unmatched rather than merged (the macros
-- variant_markers and accelerator_rows, written from the reference tables at each materialize).
-- device: the parts' canonical names, distinct, sorted and joined with " + " (for example
-- "MI300X + MI325X"); null when any part matches no row (`mlperf-wh drift` lists those names).
-- virtualized: a part carries a virtualization word (a vGPU profile such as 80C or 16Q, "Virtualized",
-- GRID, vA100); accelerator: device, and for a virtualized one device + ' (virtualized)' (stg_results
-- also reads it from a system name, "R7525_vA100-PCIE-40GBx3"). unmatched_part: for a name of several
-- parts, the first (cleaned) part no row matches, which `drift` names beside it; unknown_variant: for
-- a part whose pattern matches a row that does not accept its words, which row and which words
-- ('reads as Cloud AI 100 Pro; no row takes "Max"').
-- A partition of the device is read before the name is matched, and the annotation left out of the
-- match (so the device's pattern names the device): an NVIDIA MIG profile "<c>g.<m>gb", as the
-- accelerator names it ("NVIDIA A100-SXM-80GB (1x1g.10gb MIG)": each GPU runs one 1g.10gb instance;
-- "(7x1g.10gb MIG)": seven). partition: the profile, lower case ('1g.10gb'), null for a whole device;
-- partitions_per_device: the instances each device runs (the "7x", 1 when not written);
-- partition_fraction: the profile's compute slices over the device's (c / 7 on an A100, H100, H200 or
-- B200, c / 4 on an A30: NVIDIA's MIG user guide, "Supported MIG Profiles"), null when the device's
-- slices are not known. The accelerator stays the device ('A100 SXM'); stg_results keeps the
-- partition apart from whole devices (docs/definitions.md, "Partitions").
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
                regexp_replace(
                    regexp_replace(
                        regexp_replace(accelerator_raw, '[™®©]|\((?i:tm|r)\)', '', 'g'),
                        '(?i)\(\s*(?:\d+\s*x\s*)?\d+g\.\d+gb(?:\s+mig)?\s*\)|\b(?:\d+\s*x\s*)?\d+g\.\d+gb\b|\bmig\b',
                        '', 'g'),
                    '\((?i:x\d+|power cap[^)]*)\)|([[:alnum:]])x\d+\b', '\1', 'g'),
                '_', ' ', 'g'),
            '[\s\x{00A0}\x{2000}-\x{200B}\x{202F}\x{205F}\x{3000}]+', ' ', 'g') AS cleaned
    FROM accelerator_names
),
split AS (
    SELECT accelerator_raw, regexp_split_to_array(cleaned, ',|(?i:\band\b)|\+') AS pieces FROM cleaned
),
parts AS (
    SELECT accelerator_raw, part, position
    FROM (SELECT accelerator_raw, trim(unnest(pieces)) AS part, unnest(range(1, len(pieces) + 1)) AS position
          FROM split)
    WHERE part <> ''
),
marked AS (
    SELECT *, variant_markers(part) AS markers FROM parts
),
-- every row whose pattern the part matches (accelerator_rows: priority, file order), and the part's
-- words that row does not take: a virtualization word always passes (it makes the part virtualized),
-- memory and power by the row's memory_gb and tdp_watts, a form word by its form_factor, any other by
-- its `accepts`
candidates AS (
    SELECT m.accelerator_raw, m.position, a.priority, a.accelerator,
           list_transform(list_filter(m.markers, lambda w: NOT coalesce(
               w.kind = 'virtualization'
               OR (w.kind = 'form' AND w.form_factor = a.form_factor)
               OR (w.kind = 'memory' AND w.number = a.memory_gb)
               OR (w.kind = 'power' AND w.number = a.tdp_watts)
               OR (w.kind NOT IN ('memory', 'power', 'form')
                   AND regexp_full_match(w.word, '(?i)(?:' || nullif(a.accepts, '') || ')')), false)),
               lambda w: w.word) AS refused
    FROM (SELECT accelerator_raw, position, markers, unnest(accelerator_rows(part)) AS priority FROM marked) AS m
    JOIN ref_accelerators AS a USING (priority)
),
-- the first row that takes every word is the part; the first row that matches is what it looks like
named AS (
    SELECT m.accelerator_raw, m.part, m.position,
           list_contains(list_transform(m.markers, lambda w: w.kind), 'virtualization') AS virtualized,
           arg_min(c.accelerator, c.priority) FILTER (WHERE len(c.refused) = 0) AS accelerator,
           arg_min(c.accelerator, c.priority) AS looks_like,
           arg_min(c.refused, c.priority) AS refused
    FROM marked AS m
    LEFT JOIN candidates AS c USING (accelerator_raw, position)
    GROUP BY m.accelerator_raw, m.part, m.position, m.markers
),
matched AS (
    SELECT accelerator_raw, part, position, accelerator, virtualized,
           CASE WHEN accelerator IS NULL AND looks_like IS NOT NULL
                THEN format('reads as {}; no row takes "{}"', looks_like, array_to_string(refused, '", "'))
           END AS unknown_variant
    FROM named
),
resolved AS (
    SELECT
        accelerator_raw,
        CASE WHEN bool_and(accelerator IS NOT NULL)
             THEN string_agg(DISTINCT accelerator, ' + ' ORDER BY accelerator) END AS device,
        bool_or(virtualized) AS virtualized,
        CASE WHEN count(*) > 1 THEN arg_min(part, position) FILTER (WHERE accelerator IS NULL) END AS unmatched_part,
        arg_min(unknown_variant, position) FILTER (WHERE unknown_variant IS NOT NULL) AS unknown_variant
    FROM matched
    GROUP BY accelerator_raw
    UNION ALL
    SELECT accelerator_raw, NULL, false, NULL, NULL FROM cleaned
    WHERE accelerator_raw NOT IN (SELECT accelerator_raw FROM parts)
),
partitions AS (
    SELECT
        accelerator_raw, cleaned,
        nullif(lower(regexp_extract(accelerator_raw, '(?i)\b(?:\d+\s*x\s*)?(\d+g\.\d+gb)\b', 1)), '') AS partition,
        coalesce(nullif(regexp_extract(accelerator_raw, '(?i)\b(\d+)\s*x\s*\d+g\.\d+gb\b', 1), '')::INTEGER, 1)
            AS partitions_per_device
    FROM cleaned
),
-- compute slices of a whole device, by its name (NVIDIA MIG user guide, "Supported MIG Profiles")
device_slices(device_pattern, slices) AS (
    VALUES ('(?i)(?:^|[^a-z0-9])A100(?:[^a-z0-9]|$)', 7),
           ('(?i)(?:^|[^a-z0-9])A30(?:[^a-z0-9]|$)', 4),
           ('(?i)(?:^|[^a-z0-9])G?H(?:100|200|800)(?:[^a-z0-9]|$)', 7),
           ('(?i)(?:^|[^a-z0-9])G?B200(?:[^a-z0-9]|$)', 7)
),
fractions AS (
    SELECT p.accelerator_raw, max(regexp_extract(p.partition, '^(\d+)g', 1)::DOUBLE / d.slices) AS partition_fraction
    FROM partitions AS p
    JOIN device_slices AS d ON regexp_matches(p.cleaned, d.device_pattern)
    WHERE p.partition IS NOT NULL
    GROUP BY p.accelerator_raw
)
SELECT
    r.accelerator_raw, r.device || CASE WHEN r.virtualized THEN ' (virtualized)' ELSE '' END AS accelerator,
    r.device, r.virtualized, r.unmatched_part, r.unknown_variant, p.partition,
    CASE WHEN p.partition IS NOT NULL THEN p.partitions_per_device END AS partitions_per_device,
    f.partition_fraction
FROM resolved AS r
JOIN partitions AS p USING (accelerator_raw)
LEFT JOIN fractions AS f USING (accelerator_raw)
