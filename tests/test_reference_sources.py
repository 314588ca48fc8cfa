"""A fact of a reference table that cites an MLCommons results file is the fact that file states.

Every cell of the reference CSVs that is the address of a file in a round repository
(https://raw.githubusercontent.com/mlcommons/inference_results_vX.Y/<branch>/<path>) is read from the
shared data, where ../shared/mlcommons holds it (trees/ or mirror/ at the same repository path), and
each fact it states is checked against the row that cites it: a system description's accelerator
memory (`accelerator_memory_capacity`, and a size written in `accelerator_model_name`, "288GB") and
board power (a TGP, TDP or power cap, read by the warehouse's own rule, base_hardware_statements).
A citation the shared data does not hold was checked by hand once (CHECKED_BY_HAND says what it
states); a new one fails until it is.
"""
from __future__ import annotations

import csv
import re
from pathlib import Path

import duckdb
import pytest

from tests.conftest import ROOT, SHARED
from warehouse.identity.reference_files import REFERENCE_FILES
from warehouse.identity.rounds import REFERENCE_DIR
from warehouse.trees.parsing import parse_system
from warehouse.trees.rebuilding import row_notes

ROUND_FILE = re.compile(r"^https://raw\.githubusercontent\.com/mlcommons/(inference_results_v[0-9]+\.[0-9]+)/([^/]+)/(.+)$")
POWER_RULE = ROOT / "sql" / "base" / "base_hardware_statements.sql"
SIZE_IN_NAME = re.compile(r"(?i)\b([0-9]+(?:\.[0-9]+)?)\s*GB\b")

# Citations of round files ../shared/mlcommons does not hold: read through the search tool (its stored
# copy of the round repository, the commit named) and what each states, against the row citing it.
CHECKED_BY_HAND = {
    "https://raw.githubusercontent.com/mlcommons/inference_results_v3.0/main/closed/Dell/systems/xr4520c_q2_lite-qaic-v1.8.3.7-aic100.json":
        "mlcommons/inference_results_v3.0 @ dad59af0: accelerator_model_name 'QUALCOMM Cloud AI 100 PCIe/HHHL Lite', "
        "accelerator_memory_capacity '8 GB', hw_notes 'With 55W Accelerator TDP constraints; Accelerator TDP "
        "ranges 35-55W.', system_type 'edge' (Cloud AI 100 Lite: 8 GB, an edge card; no one TDP: a range)",
}


def shared_copy(url: str) -> Path | None:
    """The shared data's copy of a round repository's file, or None when it holds none."""
    repository, branch, path = ROUND_FILE.match(url).groups()
    for copy in (SHARED / "trees" / repository / path, SHARED / "mirror" / repository / branch / path):
        if copy.is_file():
            return copy
    return None


def cited_round_files() -> list[tuple[str, int, dict, str, str]]:
    """(table, line, row, column, address) of every reference cell citing a round repository's file."""
    cited = []
    for table in REFERENCE_FILES:
        with (REFERENCE_DIR / table).open(encoding="utf-8", newline="") as handle:
            for line, row in enumerate(csv.DictReader(handle), start=2):
                cited += [(table, line, row, column, value) for column, value in row.items()
                          if value and ROUND_FILE.match(value)]
    return cited


def stated_watts(description: dict) -> float | None:
    """The board power a system description states, read as the warehouse reads a result row's."""
    with duckdb.connect() as con:
        con.execute("CREATE TABLE results (accelerator_raw VARCHAR, system VARCHAR, notes VARCHAR, metric VARCHAR)")
        con.execute("INSERT INTO results VALUES (?, ?, ?, 'performance')",
                    [description["accelerator_model_name"], description["system_name"], row_notes(description)])
        statements = con.sql(POWER_RULE.read_text(encoding="utf-8"))
        found = statements.fetchall()
        return dict(zip(statements.columns, found[0]))["published_accelerator_watts"] if found else None


def accelerator_facts(description: dict) -> dict[str, list[float]]:
    """Each statement of the accelerator's memory and board power a system description makes."""
    sizes = [float(size) for size in SIZE_IN_NAME.findall(description["accelerator_model_name"] or "")]
    memory = [m for m in [description["accelerator_memory_gb"], *sizes] if m is not None]
    watts = stated_watts(description)
    return {"memory_gb": memory, "tdp_watts": [watts] if watts is not None else []}


def host_processors(copy: Path) -> list[str]:
    """The host processors a cited file names: a system description's (and its system name), or every row's of a round's
    checker table (summary.csv: v6.1's systems are published in the shared data only there)."""
    if copy.name == "summary.csv":
        with copy.open(encoding="utf-8-sig", newline="") as handle:
            return sorted({r["host_processor_model_name"] for r in csv.DictReader(handle)})
    description = parse_system(copy.read_bytes(), str(copy))
    # a laptop's description names the machine as its host ('MacBook Pro (Model Identifier: ...)'), the
    # chip in its system name ('Apple MacBook M1 Pro')
    return [description["host_processor_model_name"], description["system_name"]]


def processor_mismatches(table: str, line: int, row: dict, url: str, copy: Path) -> list[str]:
    """A processor row's source names a host processor its pattern matches (the one it was written from)."""
    named = host_processors(copy)
    if any(re.search(row["pattern"], name or "") for name in named):
        return []
    return [f"{table} line {line} ({row['processor']}): the pattern {row['pattern']!r} matches no host processor "
            f"the source names ({', '.join(map(str, named[:5]))}; {url})"]


# table -> what a cited file states, keyed by the table's columns it must equal
FACTS = {"accelerators.csv": accelerator_facts}
# table -> a check of a row against the file it cites -> its mismatches
CHECKS = {"processors.csv": processor_mismatches}


def mismatches(table: str, line: int, row: dict, url: str, copy: Path) -> list[str]:
    if table in CHECKS:
        return CHECKS[table](table, line, row, url, copy)
    description = parse_system(copy.read_bytes(), str(copy))
    found = []
    for column, statements in FACTS[table](description).items():
        reference = float(row[column]) if row[column] else None
        found += [f"{table} line {line} ({row['accelerator']}) {column}: reference {row[column] or '(blank)'}, "
                  f"the source states {stated:g} ({url})" for stated in statements if stated != reference]
    return found


def test_every_cited_fact_is_what_its_source_states():
    cited = [c for c in cited_round_files() if shared_copy(c[4])]
    assert len(cited) >= 14  # the shared data holds most citations: the test reads them, not nothing
    unchecked = [f"{table} line {line}: {column} cites {url}, and no check reads its facts"
                 for table, line, _, column, url in cited if table not in FACTS and table not in CHECKS]
    found = [m for table, line, row, _, url in cited if table in FACTS or table in CHECKS
             for m in mismatches(table, line, row, url, shared_copy(url))]
    assert unchecked + found == []


def test_a_citation_the_shared_data_lacks_was_checked_by_hand():
    held_elsewhere = {url for *_, url in cited_round_files() if shared_copy(url) is None}
    assert held_elsewhere == set(CHECKED_BY_HAND)


@pytest.mark.parametrize("accelerator, memory_gb, tdp_watts", [
    ("GB300", 288.0, 1400.0),   # "288 GB" HBM3e, "GB300 TGP 1400W" (v5.1 NVIDIA GB300 NVL72)
    ("MI300X", 192.0, 750.0),   # "AMD Instinct MI300X-NPS1-SPX-192GB-750W": the name states both
    ("Cloud AI 100 DM.2e", 8.0, 15.0),   # "With 15W Accelerator TDP constraints"
])
def test_the_facts_are_read_as_the_descriptions_state_them(accelerator, memory_gb, tdp_watts):
    (url,) = [url for table, _, row, _, url in cited_round_files()
              if table == "accelerators.csv" and row["accelerator"] == accelerator]
    copy = shared_copy(url)
    facts = accelerator_facts(parse_system(copy.read_bytes(), str(copy)))
    assert set(facts["memory_gb"]) == {memory_gb} and facts["tdp_watts"] == [tdp_watts]
