"""A query that returns no rows because it compares a dimension column with a value the warehouse does
not hold says so, with the nearest values it holds; the loaders suggest the nearest known names."""
from __future__ import annotations

import pytest

from tests.faults import copy_of
from warehouse.nearest import nearest
from warehouse.views.empty_hints import compared_literals


@pytest.mark.unit
def test_the_nearest_names_read_look_alike_letters_a_missing_target_and_case():
    assert nearest("B2OO", ["B200", "B300", "GB200"]) == ["B200"]
    assert nearest("llama2-70b", ["llama2-70b-99", "llama2-70b-99.9", "llama3.1-8b"]) == ["llama2-70b-99", "llama2-70b-99.9"]
    assert nearest("server", ["Offline", "Server"]) == ["Server"]
    assert nearest("Nvidai", ["NVIDIA", "Dell"]) == ["NVIDIA"]
    assert nearest("zzz", ["MI300X"]) == []


@pytest.mark.unit
def test_the_comparisons_of_dimension_columns_with_literals_are_found():
    query = ("SELECT * FROM leaderboard l WHERE l.benchmark = 'llama2-70b' AND accelerator IN ('B2OO', 'H100 SXM') "
             "AND Scenario=='Server' AND system = 'x' AND round_from = 'v5.1' AND submitter = 'O''Neil'")
    assert compared_literals(query) == [("benchmark", "llama2-70b"), ("accelerator", "B2OO"),
                                        ("accelerator", "H100 SXM"), ("scenario", "Server"), ("submitter", "O'Neil")]


def test_an_empty_answer_names_the_values_the_warehouse_holds(cli, shared_warehouse):
    # the shared rounds publish llama2-70b at two accuracy targets, never bare; no accelerator B2OO;
    # rounds v4.1, v5.1 and v6.0 only
    code, out, err = cli("--db", shared_warehouse, "sql",
                         "SELECT * FROM leaderboard WHERE benchmark = 'llama2-70b' AND accelerator = 'B2OO' "
                         "AND scenario = 'Server' AND round = 'v9.9'")
    assert code == 0 and out.startswith("(no rows")
    assert "no benchmark is 'llama2-70b' in the warehouse; nearest: 'llama2-70b-99', 'llama2-70b-99.9'" in err
    assert "no accelerator is 'B2OO' in the warehouse; nearest: 'B200'" in err
    assert "no round is 'v9.9' in the warehouse; it holds 'v4.1', 'v5.1', 'v6.0'" in err
    assert "scenario" not in err  # Server is held
    code, out, err = cli("--db", shared_warehouse, "sql", "SELECT * FROM leaderboard WHERE benchmark = 'llama2-70b-99'",
                         "--limit", "1")
    assert code == 0 and "in the warehouse" not in err  # rows came back: no hint


def test_the_price_and_claims_loaders_name_the_nearest_known_accelerator(cli, shared_warehouse, tmp_path):
    warehouse = copy_of(shared_warehouse, tmp_path)
    prices = tmp_path / "prices.csv"
    prices.write_text("accelerator,dollars_per_accelerator_hour\nB2OO,4\n")
    code, _, err = cli("prices", "load", prices, "--db", warehouse)
    assert code == 1 and "'B2OO' is no accelerator of warehouse/identity/reference/accelerators.csv: its price " \
                         "would match no result; nearest: 'B200'" in err
    claims = tmp_path / "claims.toml"
    claims.write_text('[[claim]]\nid = "x"\nvendor = "V"\nsource = "https://example.com"\npublished_on = 2026-01-01\n'
                      'statement = "s"\nround = "v6.0"\nmodel = "deepseek-r1"\nkind = "generation_speedup"\n'
                      'accelerator = "B2OO"\nbaseline_accelerator = "H200 SXM"\nmultiplier = 2.0\nstage = "preview"\n')
    code, _, err = cli("claims", "load", claims, "--db", warehouse)
    assert code == 1 and "'B2OO' matches no accelerator in warehouse/identity/reference/accelerators.csv; " \
                         "nearest: 'B200'" in err


def test_an_empty_mart_that_needs_a_load_names_the_command_that_loads_it(cli, shared_warehouse, tmp_path):
    # Issue 55: `latency_profile` before `mlperf-wh trees` printed "(no rows; ...)" and nothing more.
    from tests.conftest import ROOT
    code, out, err = cli("--db", shared_warehouse, "sql", "SELECT * FROM latency_profile")
    assert code == 0 and out.startswith("(no rows")
    assert err.splitlines() == ["latency_profile has rows once trees are loaded (mlperf-wh trees); none are yet"]
    # once claims are loaded, an empty claim_audit answer is the filter's doing: no such hint
    warehouse = copy_of(shared_warehouse, tmp_path)
    assert cli("claims", "load", ROOT / "examples" / "claims_v6.0_graded.example.toml", "--db", warehouse)[0] == 0
    code, out, err = cli("--db", warehouse, "sql", "SELECT * FROM claim_audit WHERE id = 'no-such-claim'")
    assert code == 0 and out.startswith("(no rows") and "has rows once" not in err
    code, out, err = cli("--db", warehouse, "sql", "SELECT * FROM decision_records")
    assert "decision_records has rows once decisions are loaded (mlperf-wh decisions load); none are yet" in err
