"""Parsing the three published formats into the canonical frame (pure functions, shared real data)."""
from __future__ import annotations

import copy
import csv
import io
import json
import math
from collections import Counter
from functools import lru_cache
from pathlib import Path

import polars as pl
import pytest

from schemas.raw import CHECKER_TO_FINAL
from tests.conftest import SHARED_ROUNDS, UNOFFICIAL, mirror_location
from warehouse.identity.rounds import InvalidRoundName, validate_round_name
from warehouse.ingest.parse import RECORD_NO, parse, read_raw, to_final_layout
from warehouse.ingest.pipeline import prepare

FIXTURES = Path(__file__).parent / "fixtures"
FINAL = "summary_results.json"
CHECKER_CSV = "summary.csv"
# the rounds whose mirror holds MLCommons' final table (v6.1 published only the checker's summary.csv)


def _held_as(round_name: str) -> str | None:
    """The file name the mirror holds the round as; None without the shared data (the unit tests' run
    collects this module too)."""
    try:
        return mirror_location(round_name)[0]
    except StopIteration:
        return None


FINAL_ROUNDS = [r for r in SHARED_ROUNDS if _held_as(r) == FINAL]


def mirror_file(round_name: str) -> Path:
    return Path(mirror_location(round_name)[1])


@lru_cache(maxsize=None)
def mirror_bytes(round_name: str) -> bytes:
    return mirror_file(round_name).read_bytes()


def mirror_records(round_name: str) -> list[dict]:
    return json.loads(mirror_bytes(round_name))


@lru_cache(maxsize=None)
def prepared_round(round_name: str):
    return prepare(mirror_bytes(round_name), mirror_file(round_name).name, round_name, "official",
                   str(mirror_file(round_name)))


def canonical_of(records: list[dict], round_name: str = "v6.0", origin: str = "official") -> pl.DataFrame:
    """The canonical frame (before validation) of hand-modified real records."""
    _, canonical, _ = parse(json.dumps(records).encode(), FINAL, round_name, origin, f"{origin}/{round_name}")
    return canonical


# --- the shared mirror rounds -----------------------------------------------------------------

@pytest.mark.parametrize("round_name", list(SHARED_ROUNDS))
def test_each_shared_round_parses_with_nothing_quarantined(round_name):
    prepared = prepared_round(round_name)
    v = prepared.validated
    assert prepared.format == {FINAL: "final", CHECKER_CSV: "checker_csv"}[mirror_file(round_name).name]
    assert v.rows_read == SHARED_ROUNDS[round_name]
    assert v.rows_loaded == SHARED_ROUNDS[round_name]
    assert v.rows_quarantined == 0
    assert v.quarantine.height == 0
    assert prepared.unknown_columns == []
    assert v.good.filter(pl.col("metric") == "performance").height == SHARED_ROUNDS[round_name]


@pytest.mark.parametrize("round_name", FINAL_ROUNDS)
def test_power_result_gives_one_extra_power_row_per_record(round_name):
    records = mirror_records(round_name)
    with_power = [r for r in records if r.get("Power_Result") not in (None, "")]
    good = prepared_round(round_name).validated.good
    power = good.filter(pl.col("metric") == "power").sort("record_no")
    assert power.height == len(with_power)
    assert good.height == len(records) + len(with_power)
    assert power["value"].to_list() == [float(r["Power_Result"]) for r in with_power]
    assert power["units"].to_list() == [r["Power_Units"] for r in with_power]
    assert power["higher_is_better"].to_list() == [False] * len(with_power)


def test_power_rows_exist_in_the_rounds_that_measured_power():
    # Guards the test above against passing vacuously: v4.1 and v5.1 published power results.
    assert prepared_round("v4.1").validated.good.filter(pl.col("metric") == "power").height == 31
    assert prepared_round("v5.1").validated.good.filter(pl.col("metric") == "power").height == 24


def test_the_v6_1_checker_table_holds_no_power_result():
    # v6.1's summary.csv, counted by hand from the file: 492 rows, has_power "False" in every one, and
    # no power unit among them (Tokens/s 354, Samples/s 74, Queries/s 31, Latency (ms) 17,
    # Latency (s) 15, Tasks/s 1): one performance row per record and no power row.
    rows = list(csv.DictReader(io.StringIO(mirror_bytes("v6.1").decode())))
    assert len(rows) == 492 and {r["has_power"] for r in rows} == {"False"}
    assert Counter(r["Units"] for r in rows) == {"Tokens/s": 354, "Samples/s": 74, "Queries/s": 31,
                                                 "Latency (ms)": 17, "Latency (s)": 15, "Tasks/s": 1}
    good = prepared_round("v6.1").validated.good
    assert good.height == 492 and good.filter(pl.col("metric") == "power").height == 0


def _expected_per_node(raw) -> int | None:
    if raw in ("", None):
        return None
    number = float(raw)
    return int(number) if number >= 1 else None


@pytest.mark.parametrize("round_name", ["v4.1", "v5.1"])
def test_accelerators_per_node_of_every_record_follows_the_published_a_number(round_name):
    # v4.1 publishes a# as floats (8.0) or "", v5.1 as ints (8) or "": CPU-only rows are "".
    records = mirror_records(round_name)
    good = prepared_round(round_name).validated.good
    perf = good.filter(pl.col("metric") == "performance").sort("record_no")
    assert perf["accelerators_per_node"].to_list() == [_expected_per_node(r["a#"]) for r in records]
    cpu_only = perf.filter(pl.col("accelerators_per_node").is_null())
    assert cpu_only.height == sum(1 for r in records if r["a#"] == "") > 0
    assert cpu_only["total_accelerators"].null_count() == cpu_only.height


@pytest.mark.parametrize(("a_number", "nodes", "per_node", "total"), [
    ("", 1, None, None),
    (1.0, 1, 1, 1),
    ("1.0", 1, 1, 1),
    ("8", 2, 8, 16),
    (8, 1, 8, 8),
    (0, 1, None, None),
])
def test_a_number_as_text_float_int_or_empty(a_number, nodes, per_node, total):
    record = copy.deepcopy(mirror_records("v5.1")[0])  # v5.1 publishes no "Total Accelerators"
    record.update({"a#": a_number, "Nodes": nodes})
    row = canonical_of([record], "v5.1").row(0, named=True)
    assert row["accelerators_per_node"] == per_node
    assert row["total_accelerators"] == total
    assert row["nodes"] == nodes


def test_v6_published_total_accelerators_is_used_for_the_gb300_nvl72_entry():
    good = prepared_round("v6.0").validated.good
    gb300 = good.filter((pl.col("model") == "deepseek-r1") & (pl.col("submitter") == "NVIDIA")
                        & (pl.col("platform") == "GB300-NVL72_GB300-288GB_aarch64x288_TRT"))
    assert gb300.height == 2  # Offline and Server
    assert gb300["total_accelerators"].to_list() == [288, 288]
    assert gb300["nodes"].to_list() == [72, 72]
    assert gb300["accelerators_per_node"].to_list() == [4, 4]
    # 72 nodes x 4 = 288: the file's own total agrees
    assert gb300["accelerator_count_disagrees"].to_list() == [False, False]


def test_published_total_accelerators_wins_over_nodes_times_a_number():
    record = next(r for r in mirror_records("v6.0") if r["Total Accelerators"] == 288)
    variant = {**record, "Nodes": "", "a#": 4}
    assert canonical_of([variant])["total_accelerators"].to_list() == [288]
    assert canonical_of([variant])["accelerator_count_disagrees"].to_list() == [False]  # nothing to compare


def test_a_published_total_that_contradicts_nodes_times_a_number_is_flagged_not_replaced():
    record = next(r for r in mirror_records("v6.0") if r["Total Accelerators"] == 288)
    variant = {**record, "Nodes": 36, "a#": 4}  # 36 x 4 = 144, the file says 288
    row = canonical_of([variant]).row(0, named=True)
    assert (row["total_accelerators"], row["accelerator_count_disagrees"]) == (288, True)


def test_v6_zero_total_accelerators_on_cpu_only_rows_is_null():
    records = mirror_records("v6.0")
    cpu_only = [i for i, r in enumerate(records) if r["a#"] == ""]
    assert cpu_only and all(records[i]["Total Accelerators"] == 0 for i in cpu_only)
    rows = prepared_round("v6.0").validated.good.filter(pl.col("record_no").is_in(cpu_only))
    assert rows["accelerators_per_node"].null_count() == rows.height
    assert rows["total_accelerators"].null_count() == rows.height
    assert rows["accelerator_raw"].null_count() == rows.height


def test_suite_datacenter_edge_is_accepted():
    records = mirror_records("v4.1")
    both = [i for i, r in enumerate(records) if r["Suite"] == "datacenter,edge"]
    assert len(both) == 13
    rows = prepared_round("v4.1").validated.good.filter(pl.col("record_no").is_in(both))
    assert rows.filter(pl.col("metric") == "performance").height == 13
    assert set(rows["suite"]) == {"datacenter,edge"}


def test_suite_with_a_space_after_the_comma_is_normalized():
    record = {**mirror_records("v6.0")[0], "Suite": "datacenter, edge"}
    assert canonical_of([record])["suite"].to_list() == ["datacenter,edge"]


# --- the checker format -------------------------------------------------------------------------

CANONICAL_FIELDS = [
    "round", "division", "availability", "suite", "submitter", "system", "platform", "result_id",
    "entry_id", "model", "used_model", "scenario", "metric", "value", "units", "higher_is_better",
    "accelerator_raw", "accelerators_per_node", "nodes", "total_accelerators", "processor",
    "software", "weight_data_types", "tokens_per_sample", "inferred", "verification", "source_id",
]
ACME = dict(round="v6.0", division="closed", availability="available", submitter="AcmeAI",
            source_id="official/v6.0", verification="verified", weight_data_types="int8", inferred=False)
ACME_X1 = dict(ACME, suite="datacenter", system="Acme X1 (8x H200)", platform="AcmeX1_H200x8_TRT",
               result_id="6.0-0001", entry_id="datacenter/closed/AcmeAI/AcmeX1_H200x8_TRT",
               model="resnet", used_model="resnet50", scenario="Offline",
               accelerator_raw="NVIDIA H200-SXM-141GB", accelerators_per_node=8, nodes=1,
               total_accelerators=8, processor="Intel Xeon Platinum 8480+", software="TensorRT 10.2",
               tokens_per_sample=None)
EXPECTED_CHECKER_ROWS = [
    dict(ACME_X1, metric="performance", value=612345.5, units="Samples/s", higher_is_better=True),
    dict(ACME_X1, metric="power", value=5432.1, units="Watts", higher_is_better=False),
    dict(ACME, suite="edge", system="Acme CPU box", platform="AcmeCPU_Xeon_OV", result_id="6.0-0002",
         entry_id="edge/closed/AcmeAI/AcmeCPU_Xeon_OV", model="bert-99", used_model="bert-99",
         scenario="SingleStream", metric="performance", value=12.75, units="Latency (ms)",
         higher_is_better=False, accelerator_raw=None, accelerators_per_node=None, nodes=1,
         total_accelerators=None, processor="Intel Xeon 6780E", software="OpenVINO 2025.1",
         tokens_per_sample=None),
    dict(round="v6.0", division="open", availability="available", suite="datacenter,edge",
         submitter="Betaworks", system="Beta B1 (2x L4)", platform="BetaB1_L4x2", result_id="6.0-0003",
         entry_id="datacenter,edge/open/Betaworks/BetaB1_L4x2/llama2-7b-q4", model="llama2-70b-99",
         used_model="llama2-7b-q4", scenario="Server", metric="performance", value=150.25,
         units="Tokens/s", higher_is_better=True, accelerator_raw="NVIDIA L4", accelerators_per_node=2,
         nodes=1, total_accelerators=2, processor="AMD EPYC 9354", software="vLLM 0.6",
         weight_data_types="int4", tokens_per_sample=294.5, inferred=True, verification="open",
         source_id="official/v6.0"),
]


@pytest.mark.unit
def test_checker_csv_fixture_canonicalizes_field_by_field():
    content = (FIXTURES / "checker_small.summary.csv").read_bytes()
    prepared = prepare(content, "summary.csv", "v6.0", "official", "checker_small.summary.csv")
    v = prepared.validated
    assert prepared.format == "checker_csv"
    assert prepared.unknown_columns == []
    assert (v.rows_read, v.rows_loaded, v.rows_quarantined) == (4, 4, 0)
    rows = v.good.sort("record_no").select(CANONICAL_FIELDS).to_dicts()
    assert rows == [{f: expected[f] for f in CANONICAL_FIELDS} for expected in EXPECTED_CHECKER_ROWS]


@pytest.mark.unit
def test_checker_power_units_make_power_rows():
    for units in ("Watts", "millijoules"):
        text = (FIXTURES / "checker_small.summary.csv").read_text().replace(",Watts,", f",{units},")
        _, canonical, _ = parse(text.encode(), "summary.csv", "v6.0", "official", "official/v6.0")
        power = canonical.filter(pl.col("metric") == "power")
        assert power["units"].to_list() == [units]
        assert power[RECORD_NO].to_list() == [1]


# --- result IDs: the checker path reproduces the published IDs -----------------------------------

def checker_form(raw: pl.DataFrame) -> pl.DataFrame:
    """A final-format raw frame as the submission checker would have written it."""
    back = {final: checker for checker, final in CHECKER_TO_FINAL.items() if final in raw.columns}
    return (raw.drop("ID", "Unique ID (e.g. for Audit)")
            .rename({"Model": "MlperfModel"}).rename({"UsedModel": "Model"}).rename(back))


@lru_cache(maxsize=None)
def assigned_and_published_ids(round_name: str) -> pl.DataFrame:
    raw = read_raw(mirror_bytes(round_name), "final", FINAL)
    assigned = to_final_layout(checker_form(raw), "checker_csv", round_name)
    assert assigned.height == raw.height
    return pl.DataFrame({"division": raw["Category"], "published": raw["ID"], "assigned": assigned["ID"],
                         "published_entry": raw["Unique ID (e.g. for Audit)"],
                         "assigned_entry": assigned["Unique ID (e.g. for Audit)"]})


# MLCommons' generate_final_report.py numbers entries "{version}-{NNNN}" from the --version it is
# given. For v4.1 they ran it with --version v4.1, so every published v4.1 ID carries a "v" prefix
# ("v4.1-0001"); v5.1 and v6.0 were run with "5.1"/"6.0" ("5.1-0001"). The warehouse assigns the
# un-prefixed form, so IDs are compared after stripping a leading "v"; the exception is asserted to
# be exactly that and nothing else.
@pytest.mark.parametrize("round_name", FINAL_ROUNDS)
@pytest.mark.parametrize("division", ["closed", "open"])
def test_assigned_result_ids_equal_the_published_ids_row_by_row(round_name, division):
    ids = assigned_and_published_ids(round_name).filter(pl.col("division") == division)
    assert ids.height > 0
    assert ids["assigned"].to_list() == ids["published"].str.strip_prefix("v").to_list()
    assert ids["assigned_entry"].to_list() == ids["published_entry"].to_list()


def test_the_v4_1_id_exception_is_only_the_v_prefix():
    v41 = assigned_and_published_ids("v4.1")
    assert v41["published"].str.starts_with("v4.1-").all()
    assert not v41["assigned"].str.starts_with("v").any()
    for round_name in ("v5.1", "v6.0"):
        published = assigned_and_published_ids(round_name)["published"]
        assert published.str.starts_with(round_name.lstrip("v") + "-").all()


# --- the unofficial v5.0 files: three formats, one set of results -------------------------------

UNOFFICIAL_FILES = ["summary.csv", "summary.json", "summary_results.json"]
COMPARED = ["result_id", "submitter", "system", "platform", "model", "used_model", "scenario", "units",
            "value", "division", "availability", "accelerator_raw", "total_accelerators"]
SORT_KEY = ["result_id", "model", "used_model", "scenario", "platform"]


@lru_cache(maxsize=None)
def unofficial_good(kind: str) -> pl.DataFrame:
    path = UNOFFICIAL / f"gateoverflow_submissions_v5.0.{kind}"
    prepared = prepare(path.read_bytes(), path.name, "v5.0", "unofficial", str(path))
    assert prepared.validated.rows_quarantined == 0
    return prepared.validated.good


def unofficial_performance(kind: str) -> pl.DataFrame:
    return unofficial_good(kind).filter(pl.col("metric") == "performance").select(COMPARED).sort(SORT_KEY)


@pytest.mark.parametrize("kind", UNOFFICIAL_FILES)
def test_unofficial_rows_are_all_unverified(kind):
    good = unofficial_good(kind)
    assert good.height == 1285
    assert set(good["verification"]) == {"unverified"}
    assert set(good["source_id"]) == {f"unofficial/v5.0/gateoverflow_submissions_v5.0.{kind}"}


def test_unofficial_checker_json_and_final_json_give_identical_results():
    assert unofficial_performance("summary.json").equals(unofficial_performance("summary_results.json"))


def test_unofficial_checker_csv_gives_the_same_results_as_the_json_files():
    csv, js = unofficial_performance("summary.csv"), unofficial_performance("summary.json")
    assert csv.height == js.height == 1285
    others = [c for c in COMPARED if c != "value"]
    assert csv.select(others).equals(js.select(others))
    # The files themselves print one number differently: the CSV has 37.005540011506966 where both
    # JSON files have 37.0055400115 (MacBookPro.ultrahub resnet50 Offline). Values agree to 1e-9.
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(csv["value"], js["value"]))
    differing = csv.filter(csv["value"] != js["value"])
    assert differing.select("platform", "used_model", "scenario").rows() == [
        ("MacBookPro.ultrahub-reference-cpu-onnxruntime_v1.20.1-default_config", "resnet50", "Offline")]


# --- verification labels ------------------------------------------------------------------------

def test_official_labels_follow_division_and_availability():
    good = prepared_round("v6.0").validated.good
    labels = dict(good.group_by("division", "availability").agg(pl.col("verification").unique())
                  .select(pl.concat_str("division", "availability", separator="/"), "verification").rows())
    assert {k: sorted(v) for k, v in labels.items()} == {
        "closed/available": ["verified"], "closed/preview": ["preview"], "open/available": ["open"]}


def test_closed_rdi_row_is_labelled_rdi():
    record = next(r for r in mirror_records("v6.0") if r["Category"] == "closed")
    canonical = canonical_of([{**record, "Availability": "rdi"}])
    assert canonical["verification"].to_list() == ["rdi"]


def test_unofficial_origin_is_unverified_even_when_closed_and_available():
    record = next(r for r in mirror_records("v6.0")
                  if r["Category"] == "closed" and r["Availability"] == "available")
    assert canonical_of([record], origin="unofficial")["verification"].to_list() == ["unverified"]


# --- round names --------------------------------------------------------------------------------

@pytest.mark.unit
@pytest.mark.parametrize("name", ["6.0", "v6", "v6.0/../x", "../v6.0", "v6.0 ", "V6.0", ""])
def test_invalid_round_names_are_rejected(name):
    with pytest.raises(InvalidRoundName):
        validate_round_name(name)


@pytest.mark.unit
@pytest.mark.parametrize("name", ["v4.1", "v6.0", "v10.12"])
def test_valid_round_names_pass(name):
    assert validate_round_name(name) == name


@pytest.mark.unit
def test_a_table_cut_inside_a_string_names_the_place_once():
    # json says "Unterminated string starting at" and gives the place apart: the line gives it once
    from warehouse.ingest.parse import MalformedFile, parse
    with pytest.raises(MalformedFile) as refused:
        parse(b'[{"ID": "6.0-0001", "Model": "whis', "summary_results.json", "v6.0", "official", "s")
    assert str(refused.value) == ("summary_results.json: invalid JSON at line 1 column 30: Unterminated string "
                                  "(truncated or corrupt file?)")
