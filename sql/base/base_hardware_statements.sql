-- What does each distinct description of a system state about its accelerators: their board power,
-- and whether they ran at all?
-- One row per distinct (accelerator name, system name, notes) of `results` that states one of:
--   board power: a power cap or a TGP (TDP included) with its watts, in any of the forms submitters
--     write ("AMD Instinct MI355X 288GB HBM3e (Power Cap 1000 W)"; "B300 TGP 1100W"; "NVIDIA GB300
--     NVL72, 1400W TGP Per GPU"; "1400W/1200W TGP Per GPU"; Qualcomm's "With 75W Accelerator TDP
--     constraints"; an accelerator name ending "-450W").
--     accelerator_power_statement: the phrase read; published_accelerator_watts: its watts (kW x 1000;
--     several figures, "1400W/1200W", the largest: per-kW figures are then never flattered);
--     accelerator_power_stated_as: 'power cap' or 'TGP'.
--   power_statement_unread: a power cap, TGP or TDP is mentioned and no figure could be read from it
--     (the words around it, in the notes, the system name or the accelerator name that mention it): listed in `drift` (kind 'power_statement'), never silently skipped.
--   accelerator_absent: the description says the run did not use its accelerator ("CPU only
--     submission", "host only", "without GPU"): the phrase; the row then compares as no accelerator.
-- Resolved once per distinct description, not once per row: the regular expressions are dear.
WITH described AS (
    SELECT DISTINCT accelerator_raw, system, notes FROM results WHERE metric = 'performance'
),
read AS (
    SELECT *,
           concat_ws(' | ', accelerator_raw, system, notes) AS said,
           coalesce(
               nullif(regexp_extract(said, '(?i)\b(power[\s_-]*cap|TGP|TDP)[^0-9|]{0,12}([0-9]{1,2}(\.[0-9]+)?[\s\x{202F}]*kW|[0-9]{2,4}(\.[0-9]+)?[\s\x{202F}]*W)\b(\s*/\s*([0-9]{1,2}(\.[0-9]+)?[\s\x{202F}]*kW|[0-9]{2,4}(\.[0-9]+)?[\s\x{202F}]*W)\b)*'), ''),
               nullif(regexp_extract(said, '(?i)\b([0-9]{1,2}(\.[0-9]+)?[\s\x{202F}]*kW|[0-9]{2,4}(\.[0-9]+)?[\s\x{202F}]*W)\b(\s*/\s*([0-9]{1,2}(\.[0-9]+)?[\s\x{202F}]*kW|[0-9]{2,4}(\.[0-9]+)?[\s\x{202F}]*W)\b)*[\s\x{202F}]*(accelerator[\s\x{202F}]+)?(power[\s_-]*cap|TGP|TDP)\b'), ''),
               nullif(regexp_extract(accelerator_raw, '(?i)-([0-9]{3,4}W)\b', 1), '')
           ) AS accelerator_power_statement,
           nullif(regexp_extract(said, '(?i)\b(cpu[\s-]*only|host[\s-]*only|without\s+(the\s+|an?\s+|any\s+)?(gpus?|accelerators?))\b'), '')
               AS accelerator_absent
    FROM described
),
stated AS (
    SELECT *,
           list_max(list_transform(
               regexp_extract_all(accelerator_power_statement, '([0-9]+(\.[0-9]+)?)[\s\x{202F}]*(k?)W', 1),
               lambda w: w::DOUBLE)) * CASE WHEN accelerator_power_statement ILIKE '%kW%' THEN 1000 ELSE 1 END
               AS published_accelerator_watts,
           CASE WHEN accelerator_power_statement IS NULL AND regexp_matches(said, '(?i)\b(power[\s_-]*cap|TGP|TDP)\b')
                THEN regexp_extract(list_filter([notes, system, accelerator_raw],
                                                lambda part: regexp_matches(part, '(?i)\b(power[\s_-]*cap|TGP|TDP)\b'))[1],
                                    '(?i).{0,30}\b(power[\s_-]*cap|TGP|TDP)\b.{0,30}') END AS power_statement_unread
    FROM read
)
SELECT accelerator_raw, system, notes, accelerator_power_statement, published_accelerator_watts,
       CASE WHEN accelerator_power_statement IS NULL THEN NULL
            WHEN accelerator_power_statement ILIKE '%power%' THEN 'power cap' ELSE 'TGP' END AS accelerator_power_stated_as,
       power_statement_unread, accelerator_absent
FROM stated
WHERE accelerator_power_statement IS NOT NULL OR power_statement_unread IS NOT NULL OR accelerator_absent IS NOT NULL
