-- Each distinct published accelerator name (and each name you gave your own runs) with its canonical
-- accelerator, as base_accelerator_names resolves it: what `drift` lists a name no row maps from.
-- unmatched_part: for a name of several parts ("A and B", "A, B", "A + B"), the first part no pattern
-- of accelerators.csv matches; null for a name of one part (the name itself is the part).
-- unknown_variant: a part whose pattern matches a row that does not accept its variant words (a tier,
-- an edition, a memory size it is not sold with): which row it reads as and which words no row takes.
SELECT accelerator_raw, accelerator, unmatched_part, unknown_variant
FROM base_accelerator_names
