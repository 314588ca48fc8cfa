"""Every accelerator that ran MLPerf Inference since v0.5 has a name (accelerators.csv): every raw name
of every shared round, trees and tables, maps to a canonical accelerator; the rules read the spellings
of rounds the shared data does not hold; and the order of the rows (first match wins) keeps the parts
whose names contain one another apart."""
from __future__ import annotations

import csv
import io
import json
import re
import shutil
from collections import defaultdict

import pytest

from tests.conftest import MIRROR, SHARED
from tests.readers import connect_file
from tests.shared_rows import checker_rows, rows
from warehouse.views.identities import canonical_accelerators

# What the loader reads as "no accelerator" (warehouse/ingest/parse.py, trees/rebuilding.py): never a name.
NO_ACCELERATOR = {"", "N/A", "-"}

# Raw names that are not accelerators, each with why. None today: every name the shared rounds publish
# names a part (a name here must be one a round publishes, or the list is stale).
NOT_ACCELERATORS: dict[str, str] = {}


def shared_raw_names() -> dict[str, set[str]]:
    """Raw accelerator name -> the files that publish it: every system description of the shared trees
    (accelerator_model_name) and every row of the shared tables (Accelerator)."""
    found = defaultdict(set)
    for path in sorted((SHARED / "trees").glob("inference_results_v*/*/*/systems/*.json")):
        name = json.loads(path.read_bytes()).get("accelerator_model_name")
        found[(name or "").strip()].add(str(path.relative_to(SHARED)))
    for path in sorted(MIRROR.glob("inference_results_v*/main/summary_results.json")):
        for record in json.loads(path.read_bytes()):
            found[str(record.get("Accelerator") or "").strip()].add(str(path.relative_to(SHARED)))
    for path in sorted(MIRROR.glob("inference_results_v*/main/summary.csv")):   # v6.1: the checker's CSV alone
        for record in csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))):
            found[(record.get("accelerator_model_name") or "").strip()].add(str(path.relative_to(SHARED)))
    return {name: files for name, files in found.items() if name not in NO_ACCELERATOR}


def test_every_raw_accelerator_name_of_the_shared_rounds_maps_to_a_part():
    names = shared_raw_names()
    assert len(names) > 140   # 150 distinct names, v0.5 to v6.1
    canonical = canonical_accelerators(list(names))
    unmapped = [f"{name!r} ({len(files)} files, e.g. {min(files)})" for name, files in sorted(names.items())
                if canonical[name] is None and name not in NOT_ACCELERATORS]
    assert unmapped == [], "no row of accelerators.csv maps:\n" + "\n".join(unmapped)
    assert set(NOT_ACCELERATORS) <= set(names), "NOT_ACCELERATORS lists a name no shared round publishes"


# Every raw name of every shared round (trees and tables, v0.5 to v6.1) with the part it is: the part as it
# was sold, its variant (docs/definitions.md section 13: memory, form factor, TDP, edition or tier, core
# count, virtualization), whatever the round spelled it. Read against the system descriptions: every A100
# name without a memory size describes 40 GB ("NVIDIA A100-PCIe", "NVIDIA A100-SXM4", v0.7-v1.1); "CTS" and
# "-500W" describe "TDP: 500W" (Dell's v2.1 XE8545, H3C's R5500 G5); "A10-24Q" and "GRID T4-16Q" are vGPU
# profiles of the whole card (Azure's NV72ads_A10_v5, DellEMC's R740_vT4 under VMware).
VARIANTS = {
    'NVIDIA A10': 'A10',
    'NVIDIA A10-24Q': 'A10 (virtualized)',
    'A100-PCIE-40GB': 'A100 PCIe 40GB',
    'NVIDIA A100-PCIe': 'A100 PCIe 40GB',
    'NVIDIA A100-PCIe-40GB': 'A100 PCIe 40GB',
    'NVIDIA A100-PCIE-40GB': 'A100 PCIe 40GB',
    'NVIDIA A100-PCIe-80GB': 'A100 PCIe 80GB',
    'NVIDIA A100-PCIE-80GB': 'A100 PCIe 80GB',
    'NVIDIA A100-PCIE-80GB (7x1g.10gb MIG)': 'A100 PCIe 80GB',
    'NVIDIA A100_PCIe_80GB': 'A100 PCIe 80GB',
    'NVIDIA A100-SXM-40GB': 'A100 SXM 40GB',
    'NVIDIA A100-SXM4': 'A100 SXM 40GB',
    'NVIDIA A100-SXM4 (1x1g.5gb MIG)': 'A100 SXM 40GB',
    'NVIDIA A100-SXM4-40GB': 'A100 SXM 40GB',
    'NVIDIA A100-SXM-80GB': 'A100 SXM 80GB',
    'NVIDIA A100-SXM-80GB (1x1g.10gb MIG)': 'A100 SXM 80GB',
    'NVIDIA A100-SXM-80GB (7x1g.10gb MIG)': 'A100 SXM 80GB',
    'NVIDIA A100-SXM4-80GB': 'A100 SXM 80GB',
    '1 Node: NVIDIA A100-SXM-80GBx8, 2 Nodes: NVIDIA A30x4': 'A100 SXM 80GB + A30',
    '2 Nodes: NVIDIA A100-SXM-80GBx8, 4 Nodes: NVIDIA A30x4': 'A100 SXM 80GB + A30',
    'NVIDIA A100-SXM-80GB CTS': 'A100 SXM 80GB 500W',
    'NVIDIA A100-SXM-80GB-500W': 'A100 SXM 80GB 500W',
    'NVIDIA A100-SXM4-80GB CTS': 'A100 SXM 80GB 500W',
    'NVIDIA A16': 'A16',
    'NVIDIA A2': 'A2',
    'NVIDIA A30': 'A30',
    'NVIDIA A30 (1x1g.6gb MIG)': 'A30',
    'NVIDIA A30 (4x1g.6gb MIG)': 'A30',
    'NVIDIA A30-PCIe-24GB': 'A30',
    'Xilinx Alveo U250': 'Alveo U250',
    'xilinx_u280_v3me': 'Alveo U280',
    'Intel(R) Arc(TM) 140T GPU': 'Arc 140T',
    'Intel(R) Arc Pro(R) B50': 'Arc Pro B50',
    'Intel(R) Arc Pro(R) B60': 'Arc Pro B60',
    '[MAXSUN] MS-Intel Arc Pro B60 Dual 48G Turbo': 'Arc Pro B60 Dual',
    'MS-Intel Arc Pro B60 Dual 48G Turbo': 'Arc Pro B60 Dual',
    'Intel(R) Arc Pro(R) B70': 'Arc Pro B70',
    'Intel(R) Arc(TM) Pro B70': 'Arc Pro B70',
    'NVIDIA B200-SXM-180GB': 'B200',
    'NVIDIA B300-SXM-270GB': 'B300',
    'Nvidia B300-SXM-270GB': 'B300',
    'BR104-300W PCIe': 'BR104',
    'Centaur Integrated AI Coprocessor': 'Centaur Ncore',
    'Centaur Integrated AI Coprocessor (2.0GHz)': 'Centaur Ncore',
    'Centaur Integrated AI Coprocessor (2.5GHz)': 'Centaur Ncore',
    'QUALCOMM Cloud AI 100 DM.2': 'Cloud AI 100 DM.2',
    'QUALCOMM Cloud AI 100 DM.2e': 'Cloud AI 100 DM.2e',
    'QUALCOMM Cloud AI 100 PCIe HHHL': 'Cloud AI 100 Pro',
    'QUALCOMM Cloud AI 100 PCIe/HHHL Pro': 'Cloud AI 100 Pro',
    'QUALCOMM Cloud AI 100 PCIe/HHHL Standard': 'Cloud AI 100 Standard',
    'Coral USB Accelerator': 'Coral Edge TPU',
    'DNA-F200 v2 on Alveo U50': 'DNA-F200',
    'NVIDIA Drive-A100-PCIe': 'DRIVE A100',
    'Dynamo Neuromorphic NPU': 'Dynamo NPU',
    'NVIDIA GB10': 'GB10',
    'NVIDIA GB200': 'GB200',
    'NVIDIA GB300': 'GB300',
    'NVIDIA GH200 Grace Hopper Superchip 144GB': 'GH200 144GB',
    'NVIDIA GH200 Grace Hopper Superchip 96GB': 'GH200 96GB',
    'NVIDIA GH200-GraceHopper-Superchip': 'GH200 96GB',
    'NVIDIA GeForce GTX 1080': 'GeForce GTX 1080',
    'NVIDIA GeForce GTX 1650 Ti': 'GeForce GTX 1650 Ti',
    'NVIDIA GeForce RTX 4090': 'GeForce RTX 4090',
    'Goya': 'Goya HL-100',
    'NVIDIA H100-NVL-94GB': 'H100 NVL',
    'NVIDIA H100-PCIe-80GB': 'H100 PCIe',
    'NVIDIA H100-SXM-80GB': 'H100 SXM',
    'NVIDIA H100-SXM-80GB-02': 'H100 SXM',
    'NVIDIA H200-NVL-141GB': 'H200 NVL',
    'NVIDIA H200-SXM-141GB': 'H200 SXM',
    'Virtualized NVIDIA H200-SXM-141GB': 'H200 SXM (virtualized)',
    'NVIDIA H200-SXM-141GB + AMD Instinct MI350X 288GB HBM3e': 'H200 SXM + MI350X',
    'NVIDIA H200-SXM-141GB-CTS': 'H200 SXM CTS',
    'Hailo8': 'Hailo-8',
    'HanGuang 800': 'HanGuang 800',
    'Qualcomm Hexagon 690 Processor: Hexagon Vector Accelerator (HVX)': 'Hexagon 690',
    'Qualcomm Hexagon 690 Processor: Hexagon Vector Accelerator (HVX), Hexagon Tensor Accelerator (HTA)': 'Hexagon 690',
    'IVA_FPGA_1': 'IVA FPGA',
    'Inferentia': 'Inferentia',
    'NVIDIA Jetson AGX Orin 64G': 'Jetson AGX Orin',
    'NVIDIA Orin': 'Jetson AGX Orin',
    'NVIDIA Jetson AGX Thor 128G': 'Jetson AGX Thor',
    'NVIDIA AGX Xavier': 'Jetson AGX Xavier',
    'NVIDIA Xavier': 'Jetson AGX Xavier',
    'NVIDIA Xavier NX': 'Jetson Xavier NX',
    'NVIDIA L4': 'L4',
    'NVIDIA L4-PCIe-24GB': 'L4',
    'NVIDIA L40S': 'L40S',
    'AMD Instinct MI300X 192GB HBM3': 'MI300X',
    'AMD Instinct MI300X-NPS1-SPX-192GB-750W': 'MI300X',
    'AMD MI300X-NPS1-SPX-192GB-750W': 'MI300X',
    'AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16)': 'MI300X + MI325X',
    'AMD Instinct MI325X 256GB HBM3E (x16), AMD Instinct MI300X 192GB HBM3 (x8)': 'MI300X + MI325X',
    'AMD Instinct MI300X 192GB HBM3 (x8) and AMD Instinct MI325X 256GB HBM3e (x8) and AMD Instinct MI355X 288GB HBM3e (x8)': 'MI300X + MI325X + MI355X',
    'AMD Instinct MI300X 192GB HBM3 (x2x8) and AMD Instinct MI355X 288GB HBM3e (x2x8)': 'MI300X + MI355X',
    'AMD Instinct MI325X 256GB HBM3e': 'MI325X',
    'AMD Instinct MI350P': 'MI350P',
    'AMD Instinct MI350X': 'MI350X',
    'AMD Instinct MI350X 288GB HBM3e': 'MI350X',
    'AMD Instinct MI355X': 'MI355X',
    'AMD Instinct MI355X 288GB HBM3E': 'MI355X',
    'AMD Instinct MI355X 288GB HBM3e': 'MI355X',
    'AMD Instinct MI355X 288GB HBM3e (Power Cap 1000 W)': 'MI355X',
    'AMD Instinct MI355X 288GB HBM3e (x87)': 'MI355X',
    'AMD Instinct MI355X 288GB HBM3e (x94)': 'MI355X',
    'Arm Mali-G52 MP6 GPU': 'Mali-G52 MP6',
    'ARM Mali G52MP8(8EE)': 'Mali-G52 MP8',
    'ARM Mali-G610 MP4': 'Mali-G610',
    'Arm Mali-G71 MP8': 'Mali-G71',
    'Arm Mali-G72 MP12': 'Mali-G72',
    'Arm Mali-T860 MP4': 'Mali-T860',
    'MOFFETT S10-PCIe/FHFL-40GB': 'Moffett S10',
    'MOFFETT S30-PCIe/FHFL-60GB': 'Moffett S30',
    'MOFFETT S4-PCIe/HHHL-20GB': 'Moffett S4',
    'Intel® Nervana™ Neural Network Processor': 'Nervana NNP-I 1000',
    'NVIDIA Quadro RTX 6000': 'Quadro RTX 6000',
    'NVIDIA Quadro RTX 8000': 'Quadro RTX 8000',
    'NVIDIA RTX-2000E-Ada-16GB': 'RTX 2000E Ada',
    'NVIDIA RTX 4000 Ada-PCIe-20GB': 'RTX 4000 Ada',
    'NVIDIA RTX A5000': 'RTX A5000',
    'NVIDIA RTX A5000 GPU': 'RTX A5000',
    'NVIDIA RTX PRO 4500 Blackwell': 'RTX PRO 4500 Blackwell',
    'NVIDIA RTX PRO 4500 Blackwell-PCIe-32GB': 'RTX PRO 4500 Blackwell',
    'NVIDIA RTX PRO 4500 Blackwell Server Edition': 'RTX PRO 4500 Blackwell Server Edition',
    'NVIDIA RTX PRO 6000 Blackwell': 'RTX PRO 6000 Blackwell (edition not stated)',
    'NVIDIA RTX PRO 6000 Blackwell Server Edition': 'RTX PRO 6000 Blackwell Server Edition',
    'AMD Radeon 8060S Graphics': 'Radeon 8060S',
    'Neuchips RecAccel': 'RecAccel FPGA',
    'RecAccel-FPGA': 'RecAccel FPGA',
    'Furiosa Renegade': 'Renegade',
    'SAPEON X220-compact': 'SAPEON X220 Compact',
    'SAPEON X220-enterprise': 'SAPEON X220 Enterprise',
    'NVIDIA T4': 'T4',
    'Nvidia Tesla T4': 'T4',
    'NVIDIA Tesla T4': 'T4',
    'Tesla T4': 'T4',
    'NVIDIA GRID T4-16Q': 'T4 (virtualized)',
    'NVIDIA TITAN RTX': 'TITAN RTX',
    'tpu-v3.8': 'TPU v3',
    'TPU v5e': 'TPU v5e',
    'TPU v6': 'TPU v6e',
    'Intel® UHD Graphics': 'UHD Graphics (Gen11)',
    'Nvidia Tesla V100 SXM3': 'V100 SXM',
    'NVIDIA V100S': 'V100S PCIe',
    'NVIDIA Vera Rubin': 'Vera Rubin',
    'NVIDIA VR200': 'Vera Rubin',
    'xilinx_vck5000_v4e': 'Versal VCK5000',
    'FuriosaAI Warboy': 'Warboy',
    'UntetherAI speedAI240 Preview': 'speedAI240 Preview',
    'UntetherAI speedAI240 Slim': 'speedAI240 Slim',
}


@pytest.mark.unit
def test_each_raw_name_is_the_part_it_was_sold_as():
    canonical = canonical_accelerators(list(VARIANTS))
    assert {raw: canonical[raw] for raw in VARIANTS} == VARIANTS


def test_the_variants_list_holds_every_raw_name_of_the_shared_rounds():
    assert set(shared_raw_names()) == set(VARIANTS), "a shared round publishes a name VARIANTS lacks (or no more one it lists)"


# Names a later round may publish: a variant word no row accepts leaves the name unmatched (drift names it
# and what it reads as), never merged into the part it resembles.
UNSEEN = {
    "QUALCOMM Cloud AI 100 PCIe/HHHL Lite": "Cloud AI 100 Lite",     # v3.0 (Dell's xr4520c_q2_lite): the edge card
    "NVIDIA H100-80C": "H100 PCIe (virtualized)",                    # v3.0 (Dell's vR750xa_H100_PCIe_80Cx2): a vGPU profile
    "NVIDIA A100-SXM-80GB / 500W": "A100 SXM 80GB 500W",             # v3.0 (Dell's XE9680)
    "QUALCOMM Cloud AI 100 PCIe/HHHL Max": None,                     # no such tier: not the Pro
    "NVIDIA A100-SXM4-64GB": None,                                   # no such memory size
    "NVIDIA RTX PRO 6000 Blackwell Max-Q Workstation Edition": None,  # an edition no row knows yet
    "Arm Mali-G52 MP2": None,                                        # a core count no row knows
}


@pytest.mark.unit
def test_a_variant_word_no_row_accepts_leaves_the_name_unmatched():
    canonical = canonical_accelerators(list(UNSEEN))
    assert {raw: canonical[raw] for raw in UNSEEN} == UNSEEN


@pytest.mark.unit
@pytest.mark.slow
def test_a_partition_maps_as_before_so_a_partition_rule_can_come_first():
    # MIG slices are another rule's (issue 53 item 2): the names of a slice still take the device's
    # row, as they did; no new row claims them
    names = ["NVIDIA A100-SXM-80GB (1x1g.10gb MIG)", "NVIDIA A100-PCIE-80GB (7x1g.10gb MIG)",
             "NVIDIA A100-SXM4 (1x1g.5gb MIG)", "NVIDIA A30 (1x1g.6gb MIG)", "A100-SXM-80GB-MIG-1x1g.10gb"]
    assert [canonical_accelerators(names)[n] for n in names] == ["A100 SXM 80GB", "A100 PCIe 80GB", "A100 SXM 40GB",
                                                                "A30", "A100 SXM 80GB"]


# Names read from rounds the shared data does not hold (their public repositories, the systems JSONs
# and NVIDIA's system_descriptions.tsv of each), to show the rules are not a list of the shared names.
# Rows per name were not counted: a sample of distinct names.
KEPT_BACK = {
    "v1.0": ["NVIDIA A100-PCIe-40GB", "NVIDIA A10", "NVIDIA A30", "NVIDIA A100-SXM-80GB", "NVIDIA AGX Xavier",
             "NVIDIA Xavier NX", "NVIDIA A100-SXM-80GB (7x1g.10gb MIG)", "NVIDIA A30 (1x1g.3gb MIG)"],
    "v3.0": ["NVIDIA A100-PCIe-80GB", "NVIDIA A100-SXM-80GB", "NVIDIA H100-PCIe-80GB", "NVIDIA H100-SXM-80GB",
             "NVIDIA Jetson AGX Orin", "NVIDIA Orin NX", "NVIDIA L4"],
    "v3.1": ["NVIDIA H100-PCIe-80GB", "NVIDIA GH200-GraceHopper-Superchip", "NVIDIA Jetson AGX Orin 64G",
             "NVIDIA Orin NX 16G", "NVIDIA L40", "QUALCOMM Cloud AI 100 PCIe/HHHL Pro",
             "QUALCOMM Cloud AI 100 PCIe/HHHL Standard"],
    "v4.0": ["NVIDIA H100 NVL", "NVIDIA H200-SXM-141GB", "NVIDIA H200-SXM-141GB-CTS", "NVIDIA L40S",
             "QUALCOMM Cloud AI 100 Ultra", "Intel® Gaudi® 2 AI Accelerator"],
}


# Read after the rules above were written, one system of each submitter: 9 of 10 mapped then; SiMa's
# MLSoC (v3.0 closed/SiMa/systems/davinci_dualm2.json) had no row and has one since.
KEPT_BACK_LATER = {
    "v1.0": ["QUALCOMM Cloud AI 100 PCIe HHHL", "NVIDIA A100-PCIe"],
    "v3.0": ["MLSOC DualM.2", "QUALCOMM Cloud AI 100 PCIe/HHHL Pro", "NVIDIA A40", "NVIDIA L4"],
    "v3.1": ["TPU v5e", "Habana Gaudi2", "MOFFETT S30-PCIe/FHFL-60GB"],
    "v4.0": ["TPU v5e"],
}


@pytest.mark.unit
def test_names_of_rounds_the_shared_data_does_not_hold_map():
    names = [name for sample in (KEPT_BACK, KEPT_BACK_LATER) for found in sample.values() for name in found]
    canonical = canonical_accelerators(names)
    assert [n for n in names if canonical[n] is None] == []


@pytest.mark.slow  # the session's five tree rounds take ~15 s to rebuild (the test itself: 0.1 s)
def test_fewer_than_one_percent_of_verified_rows_lack_their_accelerator_in_every_round(old_rounds_warehouse):
    # Issue 53's acceptance: of the verified rows that name an accelerator (and did not run without it),
    # the share with no canonical accelerator, per round. Before every part was named: v0.5 62 of 101,
    # v0.7 117 of 636, v1.1 480 of 1,086, v2.0 699 of 1,520, v2.1 346 of 953; today none in any round.
    with connect_file(old_rounds_warehouse, read_only=True) as con:
        found = rows(con, """
            SELECT round, count(*) AS named_rows, count(*) FILTER (WHERE accelerator IS NULL) AS unnamed
            FROM stg_results
            WHERE verification = 'verified' AND accelerator_raw IS NOT NULL AND accelerator_absent IS NULL
            GROUP BY round ORDER BY round_order(round)""")
    assert [r["round"] for r in found] == ["v0.5", "v0.7", "v1.1", "v2.0", "v2.1", "v4.1", "v5.1", "v6.0", "v6.1"]
    # v0.5 101, v0.7 636, v1.1 1,086 (1,100 once Dell's XE8545 x4 loads: issue 53 item 3), v2.0 1,520, v2.1 953
    assert all(r["named_rows"] >= 100 for r in found), found
    assert [r for r in found if r["unnamed"] >= 0.01 * r["named_rows"]] == []


@pytest.mark.slow
def test_drift_names_each_raw_name_no_row_maps_per_round_and_one_line_clears_it(
        private_con, tmp_path, monkeypatch, capsys):
    # A part the reference does not know yet, made by breaking two rows' patterns in a copy of the
    # reference (the rows stay: other tables name them): RTX PRO 6000 Blackwell (v5.1 and v6.0) and
    # MI325X, which v5.1 also publishes inside a name of two parts.
    from warehouse.cli import main
    from warehouse.identity.rounds import REFERENCE_DIR
    reference = tmp_path / "reference"
    shutil.copytree(REFERENCE_DIR, reference)
    shipped = (REFERENCE_DIR / "accelerators.csv").read_text().splitlines()
    edited = [line.replace(r"RTX\s*PRO\s*6000", "RTX PRO 6000 not yet").replace(r"\bMI325X\b", r"\bMI325Y\b")
              for line in shipped]
    (reference / "accelerators.csv").write_text("\n".join(edited) + "\n")
    assert len([a for a, b in zip(shipped, edited) if a != b]) == 3   # RTX PRO 6000's two editions, MI325X
    [(path,)] = private_con.execute("SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
                                    ).fetchall()
    loaded = {(r["round"], r["accelerator_raw"]): r["n"] for r in rows(
        private_con, "SELECT round, accelerator_raw, count(*) AS n FROM stg_results "
                     "WHERE accelerator_raw LIKE '%RTX PRO 6000%' OR accelerator_raw LIKE '%MI325X%' GROUP BY ALL")}
    private_con.close()

    monkeypatch.setenv("MLPERF_REFERENCE_DIR", str(reference))
    assert main(["views", "refresh", "--db", path]) == 0
    capsys.readouterr()
    assert main(["drift", "--db", path, "--format", "csv"]) == 0
    drift = [r for r in csv.DictReader(io.StringIO(capsys.readouterr().out)) if r["kind"] == "accelerator"]
    named = {(r["round"], r["term"]): int(r["rows"]) for r in drift}
    assert named == {(round_name, as_drift_term(raw)): n for (round_name, raw), n in loaded.items()}
    # v6.1's summary.csv names the RTX PRO 6000 too: "NVIDIA RTX PRO 6000 Blackwell" (2 rows) and "...
    # Server Edition" (32); it names no MI325X
    assert {round_name for round_name, _ in named} == {"v5.1", "v6.0", "v6.1"}
    assert named[("v6.0", "NVIDIA RTX PRO 6000 Blackwell Server Edition")] > 0
    v61 = ("NVIDIA RTX PRO 6000 Blackwell", "NVIDIA RTX PRO 6000 Blackwell Server Edition")
    assert [sum(r["accelerator_model_name"] == name for r in checker_rows("v6.1")) for name in v61] == [2, 32]
    assert [named[("v6.1", name)] for name in v61] == [2, 32]
    assert named[("v5.1", "AMD Instinct MI300X 192GB HBM3 (x32), AMD Instinct MI325X 256GB HBM3e (x16) "
                          '(no row matches "AMD Instinct MI325X 256GB HBM3e")')] > 0

    # the shipped reference holds the three lines: nothing is left to name
    monkeypatch.delenv("MLPERF_REFERENCE_DIR")
    assert main(["views", "refresh", "--db", path]) == 0
    with connect_file(path, read_only=True) as con:
        assert rows(con, "SELECT * FROM drift WHERE kind = 'accelerator'") == []


def as_drift_term(raw: str) -> str:
    """A name of several parts says which part (the MI325X one, its count annotation cleaned) no row maps."""
    parts = re.split(r",| and ", raw)
    if len(parts) == 1:
        return raw
    part = next(p for p in parts if "MI325X" in p)
    return f'{raw} (no row matches "{re.sub(r" [(]x[0-9]+[)]", "", part).strip()}")'
