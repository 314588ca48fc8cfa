"""A mixed cluster (several accelerator models in one system) is listed and labelled, never ranked per
accelerator as if it were one model."""
from __future__ import annotations

from tests.shared_rows import checker_rows, published, record, rows

MIXED = "mixed_cluster"


def test_a_mixed_cluster_is_labelled_and_never_ranked_per_accelerator(shared_con):
    # v6.0 6.0-0031 Dell_MangoBoost: 8 MI300X, 8 MI325X and 8 MI355X in one system; llama2-70b-99
    # Server 141,521 tokens/s over 24 accelerators = 5,896.7 "per accelerator" of no one model (it
    # ranked #7 per accelerator before).
    published_accelerators = record("v6.0", "6.0-0031", "llama2-70b-99", "Server")["Accelerator"]
    assert published_accelerators.count("AMD Instinct") == 3 and published("v6.0", "6.0-0031", "llama2-70b-99", "Server") == 141521.0
    [row] = rows(shared_con, f"SELECT accelerator, {MIXED}, rank_per_accelerator, result_per_accelerator FROM leaderboard "
                             "WHERE result_id = '6.0-0031' AND benchmark = 'llama2-70b-99' AND scenario = 'Server'")
    assert (row["accelerator"], row[MIXED], row["rank_per_accelerator"]) == ("MI300X + MI325X + MI355X", True, None)
    assert abs(row["result_per_accelerator"] - 141521 / 24) < 1e-9
    # the rows below it close up: each rank per accelerator is 1 + the rows of one model above it
    group = rows(shared_con, "SELECT result_per_accelerator, rank_per_accelerator FROM leaderboard WHERE round = 'v6.0' "
                             "AND suite = 'datacenter' AND benchmark = 'llama2-70b-99' AND scenario = 'Server' "
                             f"AND rank_per_accelerator IS NOT NULL")
    for ranked in group:
        assert ranked["rank_per_accelerator"] == 1 + sum(
            other["result_per_accelerator"] > ranked["result_per_accelerator"] for other in group)
    assert rows(shared_con, f"SELECT * FROM leaderboard WHERE {MIXED} AND rank_per_accelerator IS NOT NULL") == []
    assert rows(shared_con, f"SELECT * FROM accelerator_comparison WHERE {MIXED} AND rank_per_accelerator IS NOT NULL") == []
    # the mixed systems of the shared tables: v5.1 MangoBoost's MI300X + MI325X, v6.0's 6.0-0031 above,
    # and v6.1's two (summary.csv): Cisco's "UCS H200 x8 + MI350X x8 G200 2x2 TOR" (accelerator_model_name
    # "NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e", 8 rows) and Dell_MangoBoost's
    # "Heterogeneous Four-Cluster (2x8x MI300X + 2x8x MI355X, LLMBoost)" (2 rows)
    assert {r["accelerator_model_name"] for r in checker_rows("v6.1") if r["Organization"] in ("Cisco", "Dell_MangoBoost")
            and "+" in r["SystemName"]} == {"NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e",
                                            "AMD Instinct MI300X 192GB HBM3 (x2x8) and AMD Instinct MI355X 288GB HBM3e (x2x8)"}
    labelled = rows(shared_con, f"SELECT DISTINCT accelerator FROM token_economics WHERE {MIXED} ORDER BY 1")
    assert [r["accelerator"] for r in labelled] == ["H200 SXM + MI350X", "MI300X + MI325X", "MI300X + MI325X + MI355X",
                                                    "MI300X + MI355X"]
    assert rows(shared_con, f"SELECT * FROM token_economics WHERE accelerator LIKE '%+%' AND NOT {MIXED}") == []


def test_the_reports_answer_never_names_a_mixed_cluster(shared_con):
    from warehouse.export.report_answer import answer_frame
    frame = answer_frame(shared_con, "v6.0")
    assert frame.height and frame.filter(frame["accelerator"].str.contains("+", literal=True)).height == 0
