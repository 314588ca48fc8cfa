"""The dimension marts (dim_rounds, dim_benchmarks, dim_rack_capacity) on the real shared rounds.

Expected numbers are counted from ../shared/mlcommons/mirror/inference_results_vX.Y/main/
summary_results.json itself: every record is one performance row; verified = closed division and
available; preview = closed division and preview.
"""
from __future__ import annotations

import polars as pl

from tests.shared_rows import records, rows
from warehouse.identity.rounds import REFERENCE_DIR


def test_dim_rounds_counts_the_published_records(shared_con):
    found = {r["round"]: r for r in rows(shared_con, "SELECT * FROM dim_rounds")}
    assert sorted(found) == ["v4.1", "v5.1", "v6.0"]
    for round_name, row in found.items():
        published = records(round_name)
        verified = [r for r in published if r["Category"] == "closed" and r["Availability"] == "available"]
        preview = [r for r in published if r["Category"] == "closed" and r["Availability"] == "preview"]
        assert row["result_rows"] == len(published)
        assert row["verified_rows"] == len(verified)
        assert row["preview_rows"] == len(preview)
        assert row["verified_share"] == len(verified) / len(published)
        assert row["submitters"] == len({r["Submitter"] for r in published})
        assert row["sources"] == [f"official/{round_name}"]
    # v6.0: 520 records, 495 closed+available -> 495 / 520 = 0.952
    assert (found["v6.0"]["result_rows"], found["v6.0"]["verified_rows"]) == (520, 495)
    assert found["v6.0"]["round_order"] == 6 * 1000 + 0


def test_dim_benchmarks_groups_aliases_under_the_canonical_name(shared_con):
    found = {r["benchmark"]: r for r in rows(shared_con, "SELECT * FROM dim_benchmarks")}
    # benchmarks.csv: llama3.1-8b <- llama3.1-8b, llama3_1-8b; categories (VLM, LLM) are not benchmarks
    assert found["llama3.1-8b"]["aliases"] == ["llama3.1-8b", "llama3_1-8b"]
    assert found["llama3.1-8b"]["llm"] is True and found["resnet"]["llm"] is False
    assert "VLM" not in found and None not in found
    # deepseek-r1 rows: every published record whose Model is deepseek-r1, in any round
    deepseek = sum(1 for name in ("v4.1", "v5.1", "v6.0") for r in records(name) if r["Model"] == "deepseek-r1")
    assert found["deepseek-r1"]["result_rows"] == deepseek


def test_dim_rack_capacity_states_the_rack_power_of_its_accelerators(shared_con):
    racks = pl.read_csv(REFERENCE_DIR / "rack_capacity.csv")
    found = {r["accelerator"]: r for r in rows(shared_con, "SELECT * FROM dim_rack_capacity")}
    assert set(found) == set(racks["accelerator"])
    # GB300: 72 per rack (NVL72) x TDP 1400 W = 100800 W
    assert (found["GB300"]["accelerators_per_rack"], found["GB300"]["tdp_watts"]) == (72, 1400)
    assert found["GB300"]["rack_tdp_watts"] == 72 * 1400
