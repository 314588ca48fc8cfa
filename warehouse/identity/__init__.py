"""Identity: what the names in a result mean. The hand-edited reference tables in `reference/`
(accelerators and their aliases, benchmarks, rack capacity, the round registry), read and validated
(`reference`, `rounds`), and the warehouse's own table of rounds, the registry's plus those the watcher
found (`round_table`). The resolution itself runs in SQL at every materialize (sql/staging)."""
