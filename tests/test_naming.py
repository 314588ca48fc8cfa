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


def nested_fields(con) -> list[tuple[str, str]]:
    """(mart, column.field) for every field of a mart column of structs (claim_audit.rows_used: the
    result rows a claim's figure rests on), read from its DuckDB type."""
    found = []
    for r in rows(con, "SELECT table_name, column_name, data_type FROM duckdb_columns() WHERE schema_name = 'marts' "
                       "AND data_type LIKE 'STRUCT(%' ORDER BY table_name, column_index"):
        fields = re.findall(r'[(,]\s*"?([A-Za-z_][A-Za-z0-9_]*)"?\s+[A-Z]', r["data_type"])
        found += [(r["table_name"], f"{r['column_name']}.{field}") for field in fields]
    return found


def test_nested_rows_name_each_concept_as_the_marts_do(shared_con):
    # Issue 63: the claim audit's nested result rows kept value, units and total_accelerators while
    # every mart column said result, result_unit and accelerator_count.
    fields = nested_fields(shared_con)
    assert ("claim_audit", "rows_used.result") in fields and ("claim_audit", "rows_used.accelerator_count") in fields
    assert refusals([(mart, field.split(".", 1)[1]) for mart, field in fields]) == []


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


# ---------------------------------------------------------------------------------------------
# The inputs you write take the marts' names (sql/marts/_naming.toml, [inputs]); the old ones are
# still read, with a note.

INPUTS = tomllib.loads((ROOT / "sql" / "marts" / "_naming.toml").read_text(encoding="utf-8"))["inputs"]


def accepted_names() -> dict[str, list[str]]:
    """Every field or column each input format you write accepts, in the name it documents."""
    from schemas.prices import Price
    from warehouse.ledger.claims import CLAIM_FIELDS, DECISION_FIELDS
    from warehouse.ledger.measurement_formats import CSV_COLUMNS
    return {"claims": list(CLAIM_FIELDS), "decisions": list(DECISION_FIELDS),
            "prices": list(Price.to_schema().columns), "measurements_csv": list(CSV_COLUMNS)}


@pytest.mark.unit
def test_every_input_format_names_each_concept_as_the_marts_do():
    accepted = accepted_names()
    assert set(INPUTS) == set(accepted)
    assert refusals([(f"input {kind}", name) for kind, names in accepted.items() for name in names]) == []


@pytest.mark.unit
def test_each_old_input_name_is_one_the_contract_refuses_and_reads_as_an_accepted_one():
    accepted = accepted_names()
    for kind, renamed in INPUTS.items():
        for old, new in renamed.items():
            assert refusals([(kind, old)]) and new in accepted[kind] and old not in accepted[kind], (kind, old)


CLAIM = """[[claim]]
id = "scaling"
vendor = "V"
source = "https://example.com/x"
published_on = 2026-04-01
statement = "s"
round = "v6.0"
model = "deepseek-r1"
kind = "scaling_efficiency"
accelerator = "GB300"
{sizes}
multiplier = 0.9
stage = "mlcommons_verified"
"""


@pytest.mark.unit
@pytest.mark.slow
def test_a_claim_reads_the_marts_names_and_the_old_ones_with_a_note(tmp_path):
    from warehouse.ledger.claims import LedgerError, claims_frame
    new, old, both = (tmp_path / f"{name}.toml" for name in ("new", "old", "both"))
    new.write_text(CLAIM.format(sizes="accelerator_count = 288\nbaseline_accelerator_count = 72"))
    old.write_text(CLAIM.format(sizes="total_accelerators = 288\nbaseline_total_accelerators = 72"))
    both.write_text(CLAIM.format(sizes="total_accelerators = 288\naccelerator_count = 288\n"
                                       "baseline_accelerator_count = 72"))
    quiet, noted = [], []
    assert claims_frame(new, notes=quiet).equals(claims_frame(old, notes=noted))
    assert quiet == [] and noted == ["total_accelerators", "baseline_total_accelerators"]
    assert claims_frame(new)["total_accelerators"].to_list() == [288]  # the claims table's column
    with pytest.raises(LedgerError, match="'total_accelerators' and 'accelerator_count' name one field"):
        claims_frame(both)


@pytest.mark.unit
def test_a_measurements_csv_reads_the_marts_names_and_the_old_ones_with_a_note():
    from warehouse.ledger.measurement_formats import MeasurementFileError, read_csv
    row = "r1,meta-llama/Llama-3.1-8B-Instruct,H200,8,19840\n"
    new = read_csv("new.csv", f"label,model_id,accelerator,accelerator_count,tokens_per_second\n{row}".encode())
    old = read_csv("old.csv", f"label,model_id,accelerator,accelerators,output_tokens_per_second\n{row}".encode())
    assert new.runs[0].fields == old.runs[0].fields
    assert (new.runs[0].fields["accelerators"], new.runs[0].fields["output_tokens_per_second"]) == (8, 19840.0)
    assert new.notes == [] and old.notes == [
        "old.csv: 'accelerators' (1 run) is read as 'accelerator_count', the marts' name: write 'accelerator_count'",
        "old.csv: 'output_tokens_per_second' (1 run) is read as 'tokens_per_second', the marts' name: "
        "write 'tokens_per_second'"]
    with pytest.raises(MeasurementFileError, match="'accelerators' and 'accelerator_count' name one field"):
        read_csv("both.csv", b"model_id,accelerators,accelerator_count,tokens_per_second\nm,8,8,1\n")
