"""Product lines and market segments (accelerators.csv, processors.csv: segment, form_factor, line,
predecessor): generation speedups compare a part only with its predecessors of one line, segment and
form factor; CPU-only systems are compared by processor the same way.

Every expected number is read from ../shared/mlcommons/mirror (`published()` re-reads it) and the
arithmetic is written out.
"""
from __future__ import annotations

import shutil

import polars as pl
import pytest

from tests.shared_rows import checker_row, first_backfill, one, published, record, rows
from warehouse.identity.reference import REFERENCE_DIR, load_reference

SPEEDUP = ("SELECT * FROM generation_speedups WHERE round = ? AND benchmark = ? AND scenario = ? "
           "AND coalesce(accelerator_count, cpu_count) = ? AND coalesce(accelerator_new, cpu_new) = ? "
           "AND coalesce(accelerator_base, cpu_base) = ?")


def test_no_pair_crosses_a_segment_or_a_form_factor(shared_con):
    # Before product lines, the first generation speedup a new user read was "H200 NVL over GeForce
    # RTX 4090, whisper Offline (v5.1): 75.52x" (a datacenter PCIe card over a gaming card), and 12
    # pairs set a datacenter part against an edge one. Every pair's two parts now share line, segment
    # and form factor, read from the reference table itself.
    parts = {r["accelerator"]: r for r in load_reference().accelerators.to_dicts()}
    pairs = rows(shared_con, "SELECT DISTINCT accelerator_new, accelerator_base, segment, form_factor, line "
                             "FROM generation_speedups WHERE hardware_kind = 'accelerator'")
    assert pairs
    for pair in pairs:
        new, base = parts[pair["accelerator_new"]], parts[pair["accelerator_base"]]
        assert (new["segment"], new["form_factor"], new["line"]) == \
               (base["segment"], base["form_factor"], base["line"]) == \
               (pair["segment"], pair["form_factor"], pair["line"])
    assert rows(shared_con, "SELECT * FROM generation_speedups WHERE accelerator_base = 'GeForce RTX 4090' "
                            "OR accelerator_new = 'GB10'") == []


def test_h200_over_h100_in_v41(shared_con):
    # H100 SXM and H200 SXM share a generation number (Hopper, 4), so they were never compared. The
    # predecessor chain pairs them. v4.1 llama2-70b-99 Offline at 8 GPUs: best H200 SXM v4.1-0021 32124.3
    # Tokens/s; best H100 SXM v4.1-0031 HPE 24528.3: 32124.3 / 24528.3 = 1.30968. NVIDIA's v4.1-0046
    # (34864.2) ran H200 CTS parts at 1000 W ("H200-SXM-141GB-CTS", "H200 TGP 1000W"): its own part, paired
    # apart, 34864.2 / 24528.3 = 1.42139 (before the variants, that was "the H200 over the H100").
    assert published("v4.1", "v4.1-0021", "llama2-70b-99", "Offline") == 32124.3
    assert published("v4.1", "v4.1-0046", "llama2-70b-99", "Offline") == 34864.2
    assert published("v4.1", "v4.1-0031", "llama2-70b-99", "Offline") == 24528.3
    row = one(shared_con, SPEEDUP, ["v4.1", "llama2-70b-99", "Offline", 8, "H200 SXM", "H100 SXM"])
    assert row["speedup"] == pytest.approx(32124.3 / 24528.3, rel=1e-12)
    cts = one(shared_con, SPEEDUP, ["v4.1", "llama2-70b-99", "Offline", 8, "H200 SXM CTS", "H100 SXM"])
    assert cts["speedup"] == pytest.approx(34864.2 / 24528.3, rel=1e-12)
    assert (row["line"], row["segment"], row["form_factor"]) == ("NVIDIA HGX", "datacenter", "8-GPU baseboard")
    assert (row["generations_apart"], row["procurement_grade"], row["newer_is_slower"]) == (1, True, False)
    h100_pairs = rows(shared_con, "SELECT DISTINCT benchmark FROM generation_speedups WHERE round = 'v4.1' "
                                  "AND accelerator_new = 'H200 SXM' AND accelerator_base = 'H100 SXM'")
    assert len(h100_pairs) >= 10


def test_a_predecessor_two_steps_back_is_compared_and_says_so(shared_con):
    # B300 -> B200 -> H200 SXM. v6.0 gpt-oss-120b Offline at 8: the best B300 and H200 SXM rows, two
    # generations apart.
    row = one(shared_con, SPEEDUP, ["v6.0", "gpt-oss-120b", "Offline", 8, "B300", "H200 SXM"])
    assert row["generations_apart"] == 2
    new = published("v6.0", row["result_id_new"], "gpt-oss-120b", "Offline")
    base = published("v6.0", row["result_id_base"], "gpt-oss-120b", "Offline")
    assert row["speedup"] == pytest.approx(new / base, rel=1e-12)


def test_a_newer_part_that_is_slower_is_kept_and_flagged(shared_con):
    # v4.1 dlrm-v2-99 Server at 4: H100 NVL v4.1-0015 against its predecessor H100 PCIe v4.1-0055.
    new = published("v4.1", "v4.1-0015", "dlrm-v2-99", "Server")
    base = published("v4.1", "v4.1-0055", "dlrm-v2-99", "Server")
    assert new < base
    row = one(shared_con, SPEEDUP, ["v4.1", "dlrm-v2-99", "Server", 4, "H100 NVL", "H100 PCIe"])
    assert row["speedup"] == pytest.approx(new / base, rel=1e-12) == pytest.approx(0.88568, abs=5e-6)
    assert row["newer_is_slower"] is True and row["procurement_grade"] is True
    flags = rows(shared_con, "SELECT newer_is_slower, count(*) AS n FROM generation_speedups GROUP BY ALL")
    assert {f["newer_is_slower"] for f in flags} == {True, False}
    assert rows(shared_con, "SELECT * FROM generation_speedups WHERE newer_is_slower <> (speedup < 1)") == []


def test_cpu_generations_are_compared_by_processor(shared_con):
    # CPU-only systems (no accelerator) were in no hardware comparison. v4.1 retinanet Server on 2
    # sockets: Xeon 6980P (Granite Rapids) v4.1-0073 Intel, preview, 595.785 Queries/s; its predecessor
    # Xeon Platinum 8592+ (Emerald Rapids), best v4.1-0034 Intel 285.455. 595.785 / 285.455 = 2.08714.
    assert record("v4.1", "v4.1-0073", "retinanet", "Server")["Processor"].upper().endswith("6980P")
    assert published("v4.1", "v4.1-0073", "retinanet", "Server") == 595.785
    assert published("v4.1", "v4.1-0034", "retinanet", "Server") == 285.455
    row = one(shared_con, SPEEDUP, ["v4.1", "retinanet", "Server", 2, "Xeon 6980P", "Xeon Platinum 8592+"])
    assert row["speedup"] == pytest.approx(595.785 / 285.455, rel=1e-12)
    assert (row["hardware_kind"], row["line"], row["accelerator_new"], row["accelerator_count"]) == \
           ("cpu", "Intel Xeon", None, None)
    assert (row["cpu_new"], row["cpu_base"], row["cpu_count"]) == ("Xeon 6980P", "Xeon Platinum 8592+", 2)
    assert (row["verification_new"], row["procurement_grade"]) == ("preview", False)


def test_cpu_software_gains_at_the_same_socket_count(shared_con):
    # Supermicro Xeon 6980P (2 sockets) llama3.1-8b Server: v5.1 5.1-0084 450.869 Tokens/s -> v6.0
    # 6.0-0096 497.339. gain = 497.339 / 450.869 = 1.10307, same scale, procurement grade.
    assert published("v5.1", "5.1-0084", "llama3.1-8b", "Server") == 450.869
    assert published("v6.0", "6.0-0096", "llama3.1-8b", "Server") == 497.339
    gains = "SELECT * FROM software_gains WHERE basis = 'same_scale' AND submitter = 'Supermicro' " \
            "AND cpu = 'Xeon 6980P' AND benchmark = 'llama3.1-8b' AND scenario = 'Server' AND round_to = ?"
    row = one(shared_con, gains, ["v6.0"])
    assert row["gain"] == pytest.approx(497.339 / 450.869, rel=1e-12)
    assert (row["scale_from"], row["scale_to"], row["scale_changed"], row["procurement_grade"]) == (2, 2, False, True)
    assert (row["result_id_from"], row["result_id_to"]) == ("5.1-0084", "6.0-0096")
    # ...and on to v6.1 (summary.csv: Supermicro 1-node-2S-GNR_128C, "Intel(R) Xeon(R) 6980P" x2,
    # llama3.1-8b Server 1101.19 Tokens/s): 1101.19 / 497.339 = 2.21416, the same system, software alone
    v61 = checker_row("v6.1", "Supermicro", "1-node-2S-GNR_128C", "llama3.1-8b", "Server")
    assert (v61["Result"], v61["host_processor_model_name"], v61["host_processors_per_node"]) == \
        ("1101.19", "Intel(R) Xeon(R) 6980P", "2")
    row = one(shared_con, gains, ["v6.1"])
    assert row["gain"] == pytest.approx(1101.19 / 497.339, rel=1e-12)
    assert (row["result_id_from"], row["scale_to"], row["software_alone"]) == ("6.0-0096", 2, True)
    cpu_rows = rows(shared_con, "SELECT basis, count(*) AS n FROM software_gains WHERE hardware_kind = 'cpu' "
                                "GROUP BY basis ORDER BY basis")
    # a CPU-only system has no per-accelerator figure: its gains are the submitter's own (same_scale) and
    # the processor's best against its best (hardware_best)
    assert {r["basis"] for r in cpu_rows} == {"hardware_best", "same_scale"}
    # 18 from v5.1 to v6.0; 11 from v6.0 to v6.1, the CPU-only systems of summary.csv that ran in v6.0
    # with the same platform, processor and sockets: Dell 1-node-2S-GNR_86C (Xeon 6787P x2; llama3.1-8b
    # Offline and Server, rgat, whisper: 4), Intel 1-node-2S-GNR_128C (Xeon 6980P x2; the same 4) and
    # Supermicro 1-node-2S-GNR_128C (Xeon 6980P x2; llama3.1-8b Offline and Server, whisper: 3)
    assert next(r["n"] for r in cpu_rows if r["basis"] == "same_scale") == 18 + 11
    assert rows(shared_con, "SELECT submitter, count(*) AS n FROM software_gains WHERE hardware_kind = 'cpu' "
                            "AND basis = 'same_scale' AND round_to = 'v6.1' GROUP BY ALL ORDER BY ALL") == [
        {"submitter": "Dell", "n": 4}, {"submitter": "Intel", "n": 4}, {"submitter": "Supermicro", "n": 3}]


def test_the_run_reports_largest_speedups_stay_within_one_line(private_con):
    # What a new user reads first after `make run`: the three largest new generation speedups. Taken
    # as the report takes them (before: nothing), every one is a pair of one line and segment.
    report = first_backfill(private_con)
    assert len(report.new_speedups) == 3
    for speedup in report.new_speedups:
        assert speedup["segment"] == "datacenter" and speedup["line"]
    for speedup in report.new_speedups:
        assert speedup["like_for_like"] and speedup["procurement_grade"]
    lines = dict(report.sections())["Largest new generation speedups (same stack, equal size, verified)"]
    # RedHat, vLLM on both: 6.0-0094 B200 qwen3-vl Offline over 6.0-0095 H200 (tests/test_golden_answers.py)
    assert lines[0].startswith("4.34x B200 over H200 SXM x8 qwen3-vl-235b-a22b Offline, vLLM: 6.0-0095 -> 6.0-0094")


def refused_edit(tmp_path, table_file: str, key: str, edit: tuple, message: str, first_only: bool = False) -> None:
    """A copy of the reference with one cell of `table_file` changed (`edit`: the key's value, column,
    new value; in the key's first row only, or every row of it) is refused with `message`."""
    import pandera.errors as pa_errors
    shutil.copytree(REFERENCE_DIR, tmp_path, dirs_exist_ok=True)
    path = tmp_path / table_file
    table = pl.read_csv(path, infer_schema_length=0)
    name, column, value = edit
    rows = pl.col(key) == name
    if first_only:
        rows = rows & (pl.int_range(pl.len()) == pl.arg_where(pl.col(key) == name).first())
    table = table.with_columns(pl.when(rows).then(pl.lit(value)).otherwise(pl.col(column)).alias(column))
    table.write_csv(path)
    with pytest.raises(pa_errors.SchemaError, match=message):
        load_reference(tmp_path)


@pytest.mark.unit
@pytest.mark.parametrize("edit, message", [
    (("B200", "predecessor", "MI300X"), "predecessor is not an accelerator of the same line"),
    (("H100 SXM", "predecessor", "B300"), "the line runs in a cycle"),
    (("B200", "segment", "gaming"), "segment"),
])
def test_the_reference_refuses_a_broken_succession(tmp_path, edit, message):
    refused_edit(tmp_path, "accelerators.csv", "accelerator", edit, message)


@pytest.mark.unit
@pytest.mark.parametrize("edit, message", [
    (("Xeon 6788P", "source", None), "source"),
    (("Xeon 6788P", "source", "the vendor's site"), "str_startswith"),
    (("Apple M1 Pro", "family", "M2"), "one canonical processor has conflicting attributes"),
])
def test_the_processor_reference_refuses_a_part_without_a_source_or_with_two_identities(tmp_path, edit, message):
    # every processor states where it is stated (a system description or a page naming it), and its
    # patterns (Apple M1 Pro has two: "Apple M1 Pro", "MacBookPro18,1") give it one identity: the
    # edit changes its first row only
    refused_edit(tmp_path, "processors.csv", "processor", edit, message, first_only=True)
