"""The warehouse's own read of the power files, alone: each tree listed as the one pass lists it
(trees/listing.py), each power run's detail log and sample log (and, in a round of local times, its
timezone files) read in their open folder and parsed
by the pass's own function (rebuilding.read_power_file), and every figure computed (power_figures).
Nothing else of the tree is read, nothing is written: the side bench/power_bench.py times against the
plain reader (bench/power_floor.py).

    .venv/bin/python bench/power_read.py TREE_ROOT [TREE_ROOT ...]
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

from warehouse.trees.listing import Listing, list_folder, submitter_folders
from warehouse.trees.parsing_power import is_power_file
from warehouse.trees.power import reads_timezones
from warehouse.trees.reading import identity_in_folder
from warehouse.trees.rebuilding import power_figures, read_power_file, rules_for


def figures(root: Path) -> tuple[list[dict], list[dict]]:
    round_name = re.search(r"v\d+\.\d+$", root.name).group(0)
    rules, by_path = rules_for(round_name), {}
    timezones = reads_timezones(rules.power)   # a round of local times: its power folders' timezone files too

    def visit(folder, name: str, path: str) -> None:
        if is_power_file(path):
            by_path[path] = read_power_file(folder.descriptor, name, path, f"{root}/{path}",
                                            identity_in_folder(folder.descriptor, name), None, by_path, timezones)
    listing = Listing(visit=visit, timezones=timezones)
    for here in submitter_folders(root):
        list_folder(root, here, listing)
    return power_figures(list(by_path.values()), by_path, round_name, rules)


def main(argv: list[str]) -> int:
    read = [figures(Path(root)) for root in argv]
    print(f"{sum(len(rows) for rows, _ in read)} power figures read, {sum(len(q) for _, q in read)} quarantined")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
