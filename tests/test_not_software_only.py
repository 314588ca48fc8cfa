"""Why a software gain is not software alone, in words (issue 63 item 5): `not_software_only_because`
on software_gains and software_gain_summary reads the conditions of software_alone together (one
submitter's same system, host and size), which a reader had to work out from system_changed,
host_changed and scale_changed. Every figure is re-read from ../shared/mlcommons with `record()`."""
from __future__ import annotations

import pytest

from tests.shared_rows import one, record, rows


def gain_row(con, basis: str, result_from: str, result_to: str, benchmark: str, scenario: str) -> dict:
    return one(con, "SELECT gain, software_alone, system_changed, host_changed, scale_changed, "
                    "not_software_only_because FROM software_gains WHERE basis = ? AND result_id_from = ? "
                    "AND result_id_to = ? AND benchmark = ? AND scenario = ?",
               [basis, result_from, result_to, benchmark, scenario])


def sides(before: tuple[str, str], after: tuple[str, str], benchmark: str, scenario: str) -> tuple[dict, dict]:
    return record(*before, benchmark, scenario), record(*after, benchmark, scenario)


def test_another_system_and_host_are_named_with_both_sides(shared_con):
    # Dell's B200 x8 deepseek-r1 Server, v5.1 5.1-0028 (XE9685L, AMD EPYC 9965 host) 13,963.0 -> v6.0
    # 6.0-0026 (XE9780, Xeon Platinum 8570 host) 40,949.5: 40949.5 / 13963.0 = 2.9327x, one submitter
    # at one size, but another server and host: not software alone.
    old, new = sides(("v5.1", "5.1-0028"), ("v6.0", "6.0-0026"), "deepseek-r1", "Server")
    assert (old["Platform"], old["Processor"]) == ("XE9685L_B200_SXM_180GBx8_TRT", "AMD EPYC 9965 192-Core Processor")
    assert (new["Platform"], new["Processor"]) == ("XE9780_x86_B200-SXM-180GBx8_TRT", "Intel(R) Xeon(R) Platinum 8570")
    found = gain_row(shared_con, "same_scale", "5.1-0028", "6.0-0026", "deepseek-r1", "Server")
    assert found["gain"] == pytest.approx(40949.5 / 13963.0) == pytest.approx(2.9327, abs=5e-5)
    assert (found["software_alone"], found["system_changed"], found["host_changed"], found["scale_changed"]) == (
        False, True, True, False)
    assert found["not_software_only_because"] == (
        "system changed, host changed: XE9685L_B200_SXM_180GBx8_TRT -> XE9780_x86_B200-SXM-180GBx8_TRT; "
        "AMD EPYC 9965 192-Core Processor -> Intel(R) Xeon(R) Platinum 8570")


def test_the_hardware_headline_names_the_other_submitter(shared_con):
    # The first headline on the shared rounds: B200 x8 deepseek-r1 Server, NVIDIA's 5.1-0069 18,592.2 ->
    # Nebius' 6.0-0083 51,692.9 = 2.7804x: what the hardware gained, whoever ran it.
    old, new = sides(("v5.1", "5.1-0069"), ("v6.0", "6.0-0083"), "deepseek-r1", "Server")
    found = gain_row(shared_con, "hardware_best", "5.1-0069", "6.0-0083", "deepseek-r1", "Server")
    assert found["gain"] == pytest.approx(51692.9 / 18592.2) == pytest.approx(2.7804, abs=5e-5)
    assert found["not_software_only_because"] == (
        f"submitter changed, system changed, host changed: {old['Submitter']} -> {new['Submitter']}; "
        f"{old['Platform']} -> {new['Platform']}; {old['Processor']} -> {new['Processor']}")
    assert found["not_software_only_because"].startswith(
        "submitter changed, system changed, host changed: NVIDIA -> Nebius; B200-SXM-180GBx8_TRT -> nebius_b200_n1; ")


def test_a_change_of_size_says_both_sizes(shared_con):
    # HPE's RTX PRO 6000 llama3.1-8b Offline per accelerator: v5.1 5.1-0051, 46,841.8 on 8 GPUs (DL380a,
    # Xeon 6787P) -> v6.0 6.0-0052, 12,495.2 on 2 GPUs (DL385, EPYC 9475F): (12495.2 / 2) / (46841.8 / 8)
    # = 6247.6 / 5855.225 = 1.0670 (docs/definitions.md section 3's example).
    old, new = sides(("v5.1", "5.1-0051"), ("v6.0", "6.0-0052"), "llama3.1-8b", "Offline")
    assert (old["Nodes"], old["a#"], new["Total Accelerators"]) == (1, 8, 2)  # v5.1's table: a# per node
    found = gain_row(shared_con, "per_accelerator", "5.1-0051", "6.0-0052", "llama3.1-8b", "Offline")
    assert found["gain"] == pytest.approx((12495.2 / 2) / (46841.8 / 8)) == pytest.approx(1.0670, abs=5e-5)
    assert found["not_software_only_because"] == (
        f"system changed, host changed, system size changed: {old['Platform']} -> {new['Platform']}; "
        f"{old['Processor']} -> {new['Processor']}; 8 -> 2 accelerators")


def test_a_host_alone_and_software_alone(shared_con):
    # Intel's Arc Pro B60 Dual x4 llama3.1-8b Server: the same platform 1-node-4x-BMG-Pro-B60-Dual in
    # v5.1 (5.1-0056, 5,348.45, a Xeon w9-3475X host) and v6.0 (6.0-0060, 6,293.89, a Xeon 698X host):
    # 6293.89 / 5348.45 = 1.1768x, only the host changed.
    old, new = sides(("v5.1", "5.1-0056"), ("v6.0", "6.0-0060"), "llama3.1-8b", "Server")
    assert old["Platform"] == new["Platform"] == "1-node-4x-BMG-Pro-B60-Dual"
    host = gain_row(shared_con, "same_scale", "5.1-0056", "6.0-0060", "llama3.1-8b", "Server")
    assert host["gain"] == pytest.approx(6293.89 / 5348.45) == pytest.approx(1.1768, abs=5e-5)
    assert host["not_software_only_because"] == "host changed: Intel(R) Xeon(R) w9-3475X -> Intel(R) Xeon(R) 698X"
    # Google's B200 x8 deepseek-r1 Server: B200-SXM-180GBx8_TRT on a Xeon Platinum 8570 both rounds,
    # 5.1-0047 14,630.7 -> 6.0-0040 41,027.9 = 2.8042x: software alone, nothing to say
    old, new = sides(("v5.1", "5.1-0047"), ("v6.0", "6.0-0040"), "deepseek-r1", "Server")
    assert (old["Platform"], old["Processor"]) == (new["Platform"], new["Processor"])
    alone = gain_row(shared_con, "same_scale", "5.1-0047", "6.0-0040", "deepseek-r1", "Server")
    assert alone["gain"] == pytest.approx(41027.9 / 14630.7) == pytest.approx(2.8042, abs=5e-5)
    assert (alone["software_alone"], alone["not_software_only_because"]) == (True, None)


def test_the_words_are_the_booleans_read_together(shared_con):
    every = rows(shared_con, "SELECT basis, software_alone, system_changed, host_changed, scale_changed, "
                             "submitter_from <> submitter AS submitter_changed, not_software_only_because "
                             "FROM software_gains")
    assert len(every) > 500 and {r["basis"] for r in every} == {"hardware_best", "same_scale", "per_accelerator"}
    for r in every:
        said = r["not_software_only_because"]
        assert (said is None) == r["software_alone"], r
        if said is None:
            continue
        what = said.split(": ")[0].split(", ")
        assert ("system size changed" in what) == r["scale_changed"], r
        assert ("host changed" in what) == r["host_changed"], r
        assert ("submitter changed" in what) == r["submitter_changed"], r
        assert ("submitter changed" in what or "system changed" in what) == r["system_changed"], r
        assert len(said.split(": ", 1)[1].split("; ")) == len(what), r


def test_the_summary_says_it_for_its_up_to_figure(shared_con):
    # Dell's B200 deepseek-r1 same_scale v5.1 -> v6.0: the largest gain across scenarios is Server's
    # 2.9327x (Offline's is 1.8928x), the system and host changed
    found = one(shared_con, "SELECT gain, scenario, software_alone, not_software_only_because FROM software_gain_summary "
                            "WHERE submitter = 'Dell' AND accelerator = 'B200' AND benchmark = 'deepseek-r1' "
                            "AND basis = 'same_scale' AND round_from = 'v5.1' AND round_to = 'v6.0'")
    assert (found["scenario"], found["software_alone"]) == ("Server", False)
    assert found["gain"] == pytest.approx(40949.5 / 13963.0)
    assert found["not_software_only_because"].startswith("system changed, host changed: XE9685L_B200_SXM_180GBx8_TRT")
