"""scaling_span (issue 63 item 5): the smallest to the largest system of one part on one benchmark and
scenario in a round, each size's best verified result whoever ran it. Expected figures are re-read
from ../shared/mlcommons with `record()`; the arithmetic is written out."""
from __future__ import annotations

import pytest

from tests.shared_rows import one, published, rows


def span_row(con, round_name: str, accelerator: str, benchmark: str, scenario: str) -> dict:
    return one(con, "SELECT * FROM scaling_span WHERE round = ? AND accelerator = ? AND benchmark = ? "
                    "AND scenario = ?", [round_name, accelerator, benchmark, scenario])


def test_gb300_gpt_oss_from_one_gpu_to_a_rack(shared_con):
    # v6.0 GB300 gpt-oss-120b Server, every verified size: x1 Nebius 6.0-0079 14,973.1; x4 Lambda
    # 6.0-0063 53,462.7; x64 CoreWeave 6.0-0016 956,523; x72 NVIDIA 6.0-0078 1,072,250 and Nebius
    # 6.0-0081 1,096,770 (the best at 72). span = 72 / 1 = 72; speedup = 1,096,770 / 14,973.1 = 73.249;
    # efficiency = 73.249 / 72 = 1.01735 (two submitters' systems: the field's range, not one scaling).
    smallest = published("v6.0", "6.0-0079", "gpt-oss-120b", "Server")
    largest = published("v6.0", "6.0-0081", "gpt-oss-120b", "Server")
    assert largest > published("v6.0", "6.0-0078", "gpt-oss-120b", "Server")  # NVIDIA's own x72
    found = span_row(shared_con, "v6.0", "GB300", "gpt-oss-120b", "Server")
    assert found["sizes"] == [1, 4, 64, 72]
    assert (found["result_id_smallest"], found["result_id_largest"]) == ("6.0-0079", "6.0-0081")
    assert (found["throughput_smallest"], found["throughput_largest"]) == (smallest, largest) == (14973.1, 1096770.0)
    assert found["span"] == 72.0
    assert found["speedup"] == pytest.approx(1096770.0 / 14973.1) == pytest.approx(73.249, abs=5e-4)
    assert found["efficiency"] == pytest.approx(1096770.0 / 14973.1 / 72) == pytest.approx(1.01735, abs=5e-6)
    assert found["throughput_per_accelerator_largest"] == pytest.approx(1096770.0 / 72)
    assert (found["submitter_smallest"], found["submitter_largest"], found["same_submitter"]) == ("Nebius", "Nebius", True)
    assert found["procurement_grade"] is True


def test_the_ends_are_of_different_submitters_when_the_field_ran_them(shared_con):
    # v5.1 GB200 llama3.1-405b Offline: x4 Nebius 5.1-0074 855.82 -> x72 NVIDIA 5.1-0071 14,774.3:
    # span 18, speedup 14,774.3 / 855.82 = 17.2633, efficiency 17.2633 / 18 = 0.95907
    found = span_row(shared_con, "v5.1", "GB200", "llama3.1-405b", "Offline")
    assert (found["result_id_smallest"], found["result_id_largest"]) == ("5.1-0074", "5.1-0071")
    assert found["throughput_smallest"] == published("v5.1", "5.1-0074", "llama3.1-405b", "Offline") == 855.82
    assert found["throughput_largest"] == published("v5.1", "5.1-0071", "llama3.1-405b", "Offline") == 14774.3
    assert found["efficiency"] == pytest.approx(14774.3 / 855.82 / 18) == pytest.approx(0.95907, abs=5e-5)
    assert found["same_submitter"] is False


def test_a_span_needs_two_sizes_and_throughput(shared_con):
    every = rows(shared_con, "SELECT sizes, accelerator_count_smallest, accelerator_count_largest, throughput_unit "
                             "FROM scaling_span")
    assert len(every) > 100
    for r in every:
        assert len(r["sizes"]) >= 2 and r["sizes"] == sorted(set(r["sizes"]))
        assert (r["accelerator_count_smallest"], r["accelerator_count_largest"]) == (r["sizes"][0], r["sizes"][-1])
        assert r["throughput_unit"].endswith("/s")
