-- Every software gain, graded by the one eligibility rule: what the marts software_gains and
-- software_gain_summary read.
-- same_scale and per_accelerator (int_software_gains): the pair's own conditions (same scale, both
-- verified, no finding of either side's own, not implausible) and both sides procurement grade
-- (int_result_eligibility, joined on each side's row key source_id, record_no: no pair finding blames
-- them either, and a row rebuilt from a submission tree, which has no result_id, is graded as every
-- other). hardware_best (int_hardware_gains): its sides are already the best rows that rule clears.
-- not_software_only_because: why the pair is not software alone, in words: the conditions of
--   software_alone (one submitter's same system, host and size) read together once here, instead of
--   from system_changed, host_changed and scale_changed by every reader. What changed first, then each
--   change's two sides in the same order: 'submitter changed, system changed, host changed: NVIDIA ->
--   Nebius; <platform> -> <platform>; <processor> -> <processor>', 'system size changed: 4 -> 72
--   accelerators' (processors for a CPU-only system). Null when software_alone. Notes and the serving
--   stack are not among them: a software-alone pair may change both (the stack is software;
--   corroborated says whether the notes stayed the same).
WITH graded AS (
    SELECT g.* REPLACE (g.procurement_grade AND coalesce(f.procurement_grade AND t.procurement_grade, false)
                        AS procurement_grade)
    FROM int_software_gains AS g
    LEFT JOIN int_result_eligibility AS f ON f.source_id = g.source_id_from AND f.record_no = g.record_no_from
    LEFT JOIN int_result_eligibility AS t ON t.source_id = g.source_id_to AND t.record_no = g.record_no_to
    UNION ALL BY NAME
    SELECT * FROM int_hardware_gains
),
changes AS (
    SELECT *, list_filter([
        CASE WHEN submitter_from <> submitter
             THEN {'what': 'submitter changed', 'sides': format('{} -> {}', submitter_from, submitter)} END,
        CASE WHEN platform_from IS DISTINCT FROM platform_to
             THEN {'what': 'system changed', 'sides': format('{} -> {}', coalesce(platform_from, 'none named'),
                                                             coalesce(platform_to, 'none named'))} END,
        CASE WHEN host_changed
             THEN {'what': 'host changed', 'sides': format('{} -> {}', coalesce(processor_from, 'none named'),
                                                           coalesce(processor_to, 'none named'))} END,
        CASE WHEN scale_from <> scale_to
             THEN {'what': 'system size changed',
                   'sides': format('{} -> {} {}', scale_from, scale_to,
                                   CASE WHEN hardware_kind = 'cpu' THEN 'processors' ELSE 'accelerators' END)} END],
        lambda c: c IS NOT NULL) AS changed
    FROM graded
)
SELECT
    * EXCLUDE (changed),
    CASE WHEN NOT software_alone
         THEN array_to_string(list_transform(changed, lambda c: c.what), ', ') || ': '
              || array_to_string(list_transform(changed, lambda c: c.sides), '; ') END AS not_software_only_because
FROM changes
