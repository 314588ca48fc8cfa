-- What board power does each distinct description of a system state for its accelerators?
-- One row per distinct (accelerator name, system name, notes) of `results` that states one: a power
-- cap or a TGP (TDP included) with its watts, written in any of the three ("AMD Instinct MI355X 288GB
-- HBM3e (Power Cap 1000 W)"; notes "B300 TGP 1100W"). published_accelerator_watts: the watts;
-- accelerator_power_stated_as: 'power cap' or 'TGP'. Descriptions that state none are left out.
-- Resolved once per distinct description, not once per row: the regular expression is dear.
WITH described AS (
    SELECT DISTINCT accelerator_raw, system, notes FROM results WHERE metric = 'performance'
),
extracted AS (
    SELECT *,
           regexp_extract(concat_ws(' | ', accelerator_raw, system, notes),
                          '(?i)\b(power[\s_-]*cap|TGP|TDP)[^0-9|]{0,12}([0-9]{2,4})[\s\x{202F}]*W',
                          ['kind', 'watts']) AS stated
    FROM described
)
SELECT accelerator_raw, system, notes,
       TRY_CAST(stated['watts'] AS DOUBLE) AS published_accelerator_watts,
       CASE WHEN lower(stated['kind']) LIKE 'power%' THEN 'power cap' ELSE 'TGP' END AS accelerator_power_stated_as
FROM extracted
WHERE stated['watts'] <> ''
