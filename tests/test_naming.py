"""The marts' naming contract (sql/marts/_naming.toml): one name per concept, whatever the mart.

Every mart column is checked against every rule; a unit column is named after the measure beside it.
"""
from __future__ import annotations

import re
import tomllib

import pytest

from tests.conftest import ROOT
from tests.shared_rows import rows

CONTRACT = tomllib.loads((ROOT / "sql" / "marts" / "_naming.toml").read_text(encoding="utf-8"))["rule"]


def mart_columns(con) -> list[tuple[str, str]]:
    return [(r["table_name"], r["column_name"]) for r in rows(
        con, "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'marts' "
             "ORDER BY table_name, ordinal_position")]


def refusals(columns: list[tuple[str, str]]) -> list[str]:
    found = []
    for mart, column in columns:
        for rule in CONTRACT:
            if any(re.search(pattern, column) for pattern in rule["refuse"]):
                found.append(f"{mart}.{column}: {rule['concept']} is named {rule['name']}")
    return found


def test_every_mart_names_each_concept_one_way(shared_con):
    columns = mart_columns(shared_con)
    assert len({mart for mart, _ in columns}) >= 26
    assert refusals(columns) == []


# output_unit: what a benchmark produces (tokens, samples); published_unit: the unit `result` was printed in.
UNITS_OF_A_KIND = {"output_unit", "published_unit"}


def test_a_unit_column_stands_beside_its_measure(shared_con):
    by_mart: dict[str, set[str]] = {}
    for mart, column in mart_columns(shared_con):
        by_mart.setdefault(mart, set()).add(column)
    orphans = [f"{mart}.{column}" for mart, columns in by_mart.items() for column in columns
               if column.endswith("_unit") and column not in UNITS_OF_A_KIND
               and not any(other != column and other.startswith(column[:-len("_unit")]) for other in columns)]
    assert orphans == []


@pytest.mark.unit
@pytest.mark.parametrize("column, concept", [
    ("total_accelerators", "how many accelerators"), ("own_accelerators", "how many accelerators"),
    ("value_per_accelerator", "published performance result"), ("units", "published performance result"),
    ("rank_in_round", "a rank"), ("tokens_per_dollar_hour", "what a dollar buys"),
    ("output_tokens_per_second", "output tokens"), ("ttft_p99", "names its unit"),
])
def test_the_contract_refuses_the_old_names(column, concept):
    assert any(concept in line for line in refusals([("m", column)])), column


@pytest.mark.unit
@pytest.mark.parametrize("column", ["accelerator_count", "accelerators_per_rack", "own_accelerator_count",
                                    "result_per_accelerator", "rank_per_rack", "tokens_per_dollar",
                                    "dollars_per_accelerator_hour", "ttft_p99_ms", "throughput_unit"])
def test_the_contract_lets_the_new_names_pass(column):
    assert refusals([("m", column)]) == []


@pytest.mark.unit
def test_the_analyst_guide_lists_every_renamed_column_once():
    guide = (ROOT / "docs" / "analyst-guide.md").read_text(encoding="utf-8")
    names = guide[guide.index("## Names"):guide.index("## Cookbook")]
    for rule in CONTRACT:
        assert f"| {rule['concept']} |" in names
        for old in rule["renamed"]:
            assert names.count(f"- `{old}` -> ") == 1, old
