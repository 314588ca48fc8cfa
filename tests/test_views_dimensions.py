"""The dimension marts (dim_rounds, dim_benchmarks, dim_rack_capacity) on the real shared rounds.

Expected numbers are counted from ../shared/mlcommons/mirror/inference_results_vX.Y/main/
summary_results.json itself (v6.1: its summary.csv, the checker's table, under the checker's column
names): every record is one performance row; verified = closed division and available; preview =
closed division and preview.
"""
from __future__ import annotations

import polars as pl

from tests.shared_rows import checker_rows, records, rows
from warehouse.identity.rounds import REFERENCE_DIR


def published_rows(round_name: str) -> list[tuple[str, str, str, str]]:
    """(division, availability, submitter, benchmark) of every published record of the round."""
    if round_name == "v6.1":
        return [(r["Division"], r["Availability"], r["Organization"], r["MlperfModel"]) for r in checker_rows(round_name)]
    return [(r["Category"], r["Availability"], r["Submitter"], r["Model"]) for r in records(round_name)]


def test_dim_rounds_counts_the_published_records(shared_con):
    found = {r["round"]: r for r in rows(shared_con, "SELECT * FROM dim_rounds")}
    assert sorted(found) == ["v4.1", "v5.1", "v6.0", "v6.1"]
    for round_name, row in found.items():
        published = published_rows(round_name)
        verified = [r for r in published if r[:2] == ("closed", "available")]
        preview = [r for r in published if r[:2] == ("closed", "preview")]
        assert row["result_rows"] == len(published)
        assert row["verified_rows"] == len(verified)
        assert row["preview_rows"] == len(preview)
        assert row["verified_share"] == len(verified) / len(published)
        assert row["submitters"] == len({r[2] for r in published})
        assert row["sources"] == [f"official/{round_name}"]
    # v6.0: 520 records, 495 closed+available -> 495 / 520 = 0.952
    assert (found["v6.0"]["result_rows"], found["v6.0"]["verified_rows"]) == (520, 495)
    assert found["v6.0"]["round_order"] == 6 * 1000 + 0
    # v6.1: 492 rows, 466 closed+available, 8 closed+preview (the rest open: 14 available, 2 rdi; closed
    # rdi 2): 466 + 8 + 14 + 2 + 2 = 492
    assert (found["v6.1"]["result_rows"], found["v6.1"]["verified_rows"], found["v6.1"]["preview_rows"]) == (492, 466, 8)
    assert found["v6.1"]["round_order"] == 6 * 1000 + 1


def test_dim_benchmarks_groups_aliases_under_the_canonical_name(shared_con):
    found = {r["benchmark"]: r for r in rows(shared_con, "SELECT * FROM dim_benchmarks")}
    # benchmarks.csv: llama3.1-8b <- llama3.1-8b, llama3_1-8b; categories (VLM, LLM) are not benchmarks
    assert found["llama3.1-8b"]["aliases"] == ["llama3.1-8b", "llama3_1-8b"]
    assert found["llama3.1-8b"]["llm"] is True and found["resnet"]["llm"] is False
    assert "VLM" not in found and None not in found
    # deepseek-r1 rows: every published record whose benchmark is deepseek-r1, in any round (v6.1: 76
    # checker rows of MlperfModel deepseek-r1)
    deepseek = sum(1 for name in ("v4.1", "v5.1", "v6.0", "v6.1") for r in published_rows(name) if r[3] == "deepseek-r1")
    assert sum(r[3] == "deepseek-r1" for r in published_rows("v6.1")) == 76
    assert found["deepseek-r1"]["result_rows"] == deepseek
    # the end-to-end RAG benchmarks of v6.1, under the checker's workload names (benchmarks.csv): the
    # table publishes them as "end to end question-answering" (Tasks/s) and "end to end vector-database"
    # (Samples/s), one row each, model run e2e-rag-qna and e2e-rag-db
    assert (found["e2e-rag-qna"]["aliases"], found["e2e-rag-qna"]["output_unit"], found["e2e-rag-qna"]["result_rows"]) == \
        (["e2e-rag-qna", "end to end question-answering"], "tasks", 1)
    assert (found["e2e-rag-db"]["aliases"], found["e2e-rag-db"]["output_unit"], found["e2e-rag-db"]["result_rows"]) == \
        (["e2e-rag-db", "end to end vector-database"], "documents", 1)
    assert found["e2e-rag-qna"]["llm"] is False


def test_dim_rack_capacity_states_the_rack_power_of_its_accelerators(shared_con):
    racks = pl.read_csv(REFERENCE_DIR / "rack_capacity.csv")
    found = {r["accelerator"]: r for r in rows(shared_con, "SELECT * FROM dim_rack_capacity")}
    assert set(found) == set(racks["accelerator"])
    # GB300: 72 per rack (NVL72) x TDP 1400 W = 100800 W
    assert (found["GB300"]["accelerators_per_rack"], found["GB300"]["tdp_watts"]) == (72, 1400)
    assert found["GB300"]["rack_tdp_watts"] == 72 * 1400
