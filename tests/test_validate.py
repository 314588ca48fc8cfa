"""Quarantine and whole-file rejection, on small variants of real v6.0 records run through prepare()."""
from __future__ import annotations

import copy
import json
from functools import lru_cache

import pytest

from tests.conftest import MIRROR
from warehouse.ingest.parse import MalformedFile
from warehouse.ingest.pipeline import prepare

FINAL = "summary_results.json"
LABEL = "http://mirror.test/inference_results_v6.0/main/summary_results.json"


@lru_cache(maxsize=1)
def v60() -> bytes:
    return (MIRROR / "inference_results_v6.0" / "main" / FINAL).read_bytes()


@lru_cache(maxsize=1)
def real() -> list[dict]:
    """The real v6.0 records (copy before changing them)."""
    return json.loads(v60())


def real_records(n: int = 4) -> list[dict]:
    """The first n real v6.0 records (llama2-70b throughput rows, no power; record 1 is Offline)."""
    records = copy.deepcopy(real()[:n])
    assert all(r["Performance_Units"] == "Tokens/s" for r in records) and records[1]["Scenario"] == "Offline"
    return records


def run(records: list[dict] | None = None, content: bytes | None = None):
    content = content if content is not None else json.dumps(records).encode()
    return prepare(content, FINAL, "v6.0", "official", LABEL)


def quarantined_one(changes: dict, position: int = 1):
    """Change one real record; the result must quarantine exactly that record."""
    records = real_records()
    records[position].update(changes)
    v = run(records).validated
    assert (v.rows_read, v.rows_loaded, v.rows_quarantined) == (4, 3, 1)
    assert v.rows_read == v.rows_loaded + v.rows_quarantined
    assert v.quarantine["record_no"].to_list() == [position]
    assert json.loads(v.quarantine["raw_record"][0]) == records[position]
    assert position not in v.good["record_no"].to_list()
    return v.quarantine["reasons"][0].to_list()


def test_negative_value_is_quarantined():
    reasons = quarantined_one({"Performance_Result": -5})
    assert any(r.startswith("value:") and "greater_than(0)" in r for r in reasons), reasons


def test_nan_token_is_quarantined():
    content = json.dumps(real_records()).encode()
    old = json.dumps(real()[1]["Performance_Result"]).encode()
    content = content.replace(b'"Performance_Result": ' + old, b'"Performance_Result": NaN', 1)
    assert b"NaN" in content
    v = run(content=content).validated
    assert (v.rows_loaded, v.rows_quarantined) == (3, 1)
    assert v.quarantine["record_no"].to_list() == [1]
    assert "NaN" in v.quarantine["raw_record"][0]
    assert any(r.startswith("value:") for r in v.quarantine["reasons"][0]), v.quarantine["reasons"][0]


def test_nan_string_is_quarantined():
    reasons = quarantined_one({"Performance_Result": "NaN"})
    assert any(r.startswith("value:") and "'NaN'" in r for r in reasons), reasons
    assert not any("infinite" in r for r in reasons), reasons


def test_infinite_value_is_quarantined():
    reasons = quarantined_one({"Performance_Result": "inf"})
    assert any("value is infinite" in r for r in reasons), reasons


def test_non_numeric_value_is_quarantined():
    reasons = quarantined_one({"Performance_Result": "abc"})
    assert reasons == ["value: missing or not a number (got 'abc')"]


def test_empty_value_is_quarantined():
    reasons = quarantined_one({"Performance_Result": ""})
    assert reasons == ["value: missing or not a number (got '')"]


def admitted(changes: dict, position: int = 1) -> dict:
    """Change one real record; every record must load, the changed one as published."""
    records = real_records()
    records[position].update(changes)
    v = run(records).validated
    assert (v.rows_read, v.rows_loaded, v.rows_quarantined) == (4, 4, 0), v.quarantine
    return v.good.filter(v.good["record_no"] == position).row(0, named=True)


def test_unknown_scenario_is_admitted_as_published():
    assert admitted({"Scenario": "Batch"})["scenario"] == "Batch"


@pytest.mark.parametrize("spelling", ["offline", "OFFLINE", " Offline ", "off_line"])
def test_scenario_spelling_folds_as_mlcommons_checker_does(spelling):
    assert admitted({"Scenario": spelling})["scenario"] == "Offline"


def test_unknown_rate_unit_is_admitted_as_higher_is_better():
    row = admitted({"Performance_Units": "Frobs/s"})
    assert (row["units"], row["higher_is_better"]) == ("Frobs/s", True)


def test_unit_of_unknown_form_is_admitted_with_no_direction():
    row = admitted({"Performance_Units": "Frobs"})
    assert (row["units"], row["higher_is_better"]) == ("Frobs", None)


def test_unknown_division_is_admitted_and_never_verified():
    row = admitted({"Category": "secret"})
    assert (row["division"], row["verification"]) == ("secret", "unverified")


def test_unknown_availability_is_admitted_and_never_verified():
    row = admitted({"Availability": "cloud"})
    assert (row["availability"], row["verification"]) == ("cloud", "unverified")


@pytest.mark.parametrize("field", ["Submitter", "Platform", "Model", "Scenario"])
def test_missing_identity_field_is_quarantined(field):
    reasons = quarantined_one({field: ""})
    assert any(r.startswith(field.lower()) for r in reasons), reasons


def test_latency_unit_of_a_new_spelling_in_offline_is_quarantined():
    reasons = quarantined_one({"Performance_Units": "Latency (us)"})
    assert len(reasons) == 1 and reasons[0].startswith("units contradict the scenario"), reasons


def test_latency_units_in_offline_scenario_are_quarantined():
    reasons = quarantined_one({"Performance_Units": "Latency (ms)"})
    assert len(reasons) == 1
    assert reasons[0].startswith("units contradict the scenario")
    assert "Offline" in reasons[0] and "Latency (ms)" in reasons[0]


def test_duplicate_record_quarantines_the_second_copy_only():
    records = real_records()
    records.append(copy.deepcopy(records[1]))
    v = run(records).validated
    assert (v.rows_read, v.rows_loaded, v.rows_quarantined) == (5, 4, 1)
    assert v.quarantine["record_no"].to_list() == [4]
    assert 1 in v.good["record_no"].to_list()
    reasons = v.quarantine["reasons"][0].to_list()
    assert len(reasons) == 1 and reasons[0].startswith("duplicate of an earlier row")
    assert json.loads(v.quarantine["raw_record"][0]) == records[1]


def test_record_failing_two_checks_lists_both_reasons():
    reasons = quarantined_one({"Performance_Result": -5, "Submitter": ""})
    assert len(reasons) == 2
    assert any(r.startswith("value:") for r in reasons)
    assert any(r.startswith("submitter:") for r in reasons)


def test_bad_power_result_quarantines_the_whole_record():
    # One record gives two canonical rows; if its power row fails, the record is quarantined whole.
    reasons = quarantined_one({"Power_Result": -1.0, "Power_Units": "Watts"})
    assert any(r.startswith("value:") for r in reasons), reasons


def test_quarantine_keeps_the_other_records_of_a_real_round():
    records = copy.deepcopy(real())
    for i in (10, 200, 519):
        records[i]["Performance_Result"] = "abc"
    v = run(records).validated
    assert (v.rows_read, v.rows_loaded, v.rows_quarantined) == (520, 517, 3)
    assert v.quarantine["record_no"].to_list() == [10, 200, 519]
    assert v.good.height == 517


# --- whole-file rejection -------------------------------------------------------------------------

def rejected(content: bytes) -> str:
    with pytest.raises(MalformedFile) as caught:
        run(content=content)
    message = str(caught.value)
    assert message.startswith(LABEL + ":")
    return message


def test_truncated_json_is_rejected_naming_the_file():
    assert "invalid JSON" in rejected(v60()[: len(v60()) // 2])


def test_invalid_utf8_is_rejected_naming_the_file():
    assert "not valid UTF-8 at byte 100" in rejected(v60()[:100] + b"\xff\xfe" + v60()[100:])


def test_json_object_where_an_array_is_expected_is_rejected():
    assert "expected a JSON array" in rejected(json.dumps({"0": real()[0]}).encode())


def test_missing_required_column_is_rejected_naming_it():
    records = [{k: v for k, v in r.items() if k != "Performance_Result"} for r in real_records()]
    message = rejected(json.dumps(records).encode())
    assert "required column(s) missing: Performance_Result" in message


@pytest.mark.unit
def test_empty_array_is_rejected():
    assert "holds no result records" in rejected(b"[]")


@pytest.mark.unit
def test_array_of_non_objects_is_rejected():
    assert "record 0 is int" in rejected(b"[1, 2]")


def test_unknown_extra_column_is_accepted_and_reported():
    records = [{**r, "Frobnication": "x"} for r in real_records()]
    prepared = run(records)
    assert prepared.unknown_columns == ["Frobnication"]
    assert prepared.validated.rows_loaded == 4
    assert "Frobnication" not in prepared.validated.good.columns
