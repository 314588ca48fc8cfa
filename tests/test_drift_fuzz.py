"""Drift fuzz: rounds the warehouse has never seen, generated from the real shared rounds.

Each example takes a real published file (v6.0's final table, or GATEOverflow's checker CSV), applies
a random mix of the drift a new round brings (scenario spellings, new units, scenarios, benchmarks,
accelerator names with trademark marks and odd spacing, unknown columns, reordered columns, CRLF,
a byte-order mark, a missing optional column) and a few broken records, loads it into a real DuckDB
warehouse and checks: only the broken records are quarantined, with their reasons; every new term is
in `drift`; every untouched row is exactly what the unmodified file gives.
"""
from __future__ import annotations

import csv
import io
import json
import uuid
from dataclasses import dataclass, field

import polars as pl
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from tests.conftest import MIRROR, UNOFFICIAL
from warehouse.ingest.fetch import Fetched
from warehouse.ingest.pipeline import load, prepare
from warehouse.store import db
from warehouse.views import materialize


@dataclass
class Drifted:
    """A drifted file: its records, what was done to them, and what the load must report."""
    records: list[dict]
    fmt: str                                   # "final" or "checker_csv"
    touched: set[int] = field(default_factory=set)        # records whose canonical rows may differ
    broken: dict[int, str] = field(default_factory=dict)  # record -> start of the expected reason
    new_terms: set[tuple[str, str]] = field(default_factory=set)  # (kind, term) expected in drift
    crlf: bool = False
    bom: bool = False
    # A checker file has no IDs: they are numbered over its system entries, as MLCommons' final-report
    # tool does, so a record moved to another entry (a blanked submitter, an open-division record
    # renamed to another model) renumbers the entries after it. Only then may IDs differ.
    entries_changed: bool = False

    @property
    def file_name(self) -> str:
        return "summary_results.json" if self.fmt == "final" else "summary.csv"

    def content(self) -> bytes:
        if self.fmt == "final":
            text = json.dumps(self.records, ensure_ascii=False, indent=1)
            text = text.replace("\n", "\r\n") if self.crlf else text
        else:
            columns = list(dict.fromkeys(k for r in self.records for k in r))
            out = io.StringIO(newline="")
            writer = csv.DictWriter(out, fieldnames=columns, lineterminator="\r\n" if self.crlf else "\n")
            writer.writeheader()
            writer.writerows(self.records)
            text = out.getvalue()
        return (b"\xef\xbb\xbf" if self.bom else b"") + text.encode("utf-8")


def real(fmt: str) -> list[dict]:
    if fmt == "final":
        return json.loads((MIRROR / "inference_results_v6.0" / "main" / "summary_results.json").read_bytes())
    checker = (UNOFFICIAL / "gateoverflow_submissions_v5.0.summary.csv").read_bytes()
    return list(csv.DictReader(io.StringIO(checker.decode("utf-8-sig"), newline="")))


# ---------------------------------------------------------------------------------------------
# the drift a new round brings, one function each: (drifted file, hypothesis data) -> None

FIELDS = {  # the format's field for each concept
    "final": {"scenario": "Scenario", "units": "Performance_Units", "model": "Model", "used": "UsedModel",
              "accelerator": "Accelerator", "value": "Performance_Result", "submitter": "Submitter",
              "division": "Category"},
    "checker_csv": {"scenario": "Scenario", "units": "Units", "model": "MlperfModel", "used": "Model",
                    "accelerator": "accelerator_model_name", "value": "Result", "submitter": "Organization",
                    "division": "Division"},
}


def _pick(d: Drifted, data, condition, n_max: int = 6, one_per_entry: bool = False) -> list[int]:
    """Some records (not already touched or broken) that satisfy condition(record). one_per_entry:
    at most one record of each system entry (two of an entry renamed alike would be duplicates)."""
    candidates = [i for i, r in enumerate(d.records)
                  if condition(r) and i not in d.touched and i not in d.broken]
    if not candidates:
        return []
    chosen = sorted(data.draw(st.sets(st.sampled_from(candidates), min_size=1, max_size=n_max)))
    if one_per_entry:
        f = FIELDS[d.fmt]
        firsts = {}
        for i in chosen:
            firsts.setdefault((d.records[i][f["submitter"]], d.records[i]["Platform"]), i)
        chosen = sorted(firsts.values())
    return chosen


def scenario_case(d: Drifted, data) -> None:
    f = FIELDS[d.fmt]["scenario"]
    for i in _pick(d, data, lambda r: True, 40):
        d.records[i][f] = data.draw(st.sampled_from([str.lower, str.upper, str.swapcase]))(d.records[i][f])


def _new_term(d: Drifted, data, kind: str, term: str, concepts: tuple[str, ...], condition=lambda r: True,
              one_per_entry: bool = False) -> None:
    """Some records take `term` in the fields of `concepts`; the load must report (kind, term)."""
    f = FIELDS[d.fmt]
    for i in _pick(d, data, condition, one_per_entry=one_per_entry):
        for concept in concepts:
            d.records[i][f[concept]] = term
        d.touched.add(i)
        d.new_terms.add((kind, term))


def new_rate_unit(d: Drifted, data) -> None:
    units = FIELDS[d.fmt]["units"]
    _new_term(d, data, "unit", "Frobs/s", ("units",),
              lambda r: r[units] in ("Samples/s", "Tokens/s", "Queries/s"))


def new_latency_unit(d: Drifted, data) -> None:
    units = FIELDS[d.fmt]["units"]
    _new_term(d, data, "unit", "Latency (us)", ("units",), lambda r: r[units].startswith("Latency"))


def new_scenario(d: Drifted, data) -> None:
    _new_term(d, data, "scenario", "Burst", ("scenario",), one_per_entry=True)


def new_benchmark(d: Drifted, data) -> None:
    division = FIELDS[d.fmt]["division"]  # an open-division row may run a model of its own: no drift
    _new_term(d, data, "benchmark", "frobnet-99", ("model", "used"), lambda r: r[division] == "closed",
              one_per_entry=True)
    d.entries_changed |= d.fmt == "checker_csv" and ("benchmark", "frobnet-99") in d.new_terms


def accelerator_spelling(d: Drifted, data) -> None:
    """Marks, doubled or non-breaking spaces and case: the same accelerator, so nothing changes."""
    f = FIELDS[d.fmt]["accelerator"]
    named = lambda r: r.get(f) and any(k in r[f] for k in ("GB300", "B200", "MI355X", "H200"))  # noqa: E731
    for i in _pick(d, data, named, 20):
        name = d.records[i][f]
        spelled = data.draw(st.sampled_from([
            name.replace("NVIDIA ", "NVIDIA® ").replace("AMD ", "AMD™ "),
            name.replace(" ", "  "), name.replace(" ", "\u00a0"), name.lower(), name.upper() + "™"]))
        d.records[i][f] = spelled
        d.touched.add(i)  # accelerator_raw is kept as published; the canonical accelerator must not move


def unknown_column(d: Drifted, data) -> None:
    name = data.draw(st.sampled_from(["Frobnication", "energy_per_token", "Rack Units"]))
    for r in d.records:
        r[name] = "42"
    d.new_terms.add(("column", name))


def reordered_columns(d: Drifted, data) -> None:
    order = data.draw(st.permutations(list(d.records[0])))
    d.records[:] = [{k: r[k] for k in order if k in r} | r for r in d.records]


def missing_optional_column(d: Drifted, data) -> None:
    optional = "weight_data_types" if d.fmt == "checker_csv" else "Details"
    for i, r in enumerate(d.records):
        if r.pop(optional, None) is not None and d.fmt == "checker_csv":
            d.touched.add(i)


def line_ends_and_bom(d: Drifted, data) -> None:
    d.crlf, d.bom = data.draw(st.booleans()), data.draw(st.booleans())


def broken_records(d: Drifted, data) -> None:
    f = FIELDS[d.fmt]
    breakers = {
        "value": lambda r: r.update({f["value"]: data.draw(st.sampled_from(["abc", "-3", "inf", ""]))}),
        "submitter": lambda r: r.update({f["submitter"]: ""}),
    }
    for i in _pick(d, data, lambda r: True, 3):
        kind = data.draw(st.sampled_from(sorted(breakers)))
        breakers[kind](d.records[i])
        d.broken[i] = kind
        d.entries_changed |= d.fmt == "checker_csv" and kind == "submitter"


DRIFTS = [scenario_case, new_rate_unit, new_latency_unit, new_scenario, new_benchmark,
          accelerator_spelling, unknown_column, reordered_columns, missing_optional_column,
          line_ends_and_bom]


# ---------------------------------------------------------------------------------------------


ROUND_OF = {"summary_results.json": "v6.0", "summary.csv": "v5.0"}  # the round each real file is of


def load_into(con, content: bytes, file_name: str):
    round_name = ROUND_OF[file_name]
    prepared = prepare(content, file_name, round_name, "official", f"fuzz/{file_name}")
    outcome = load(con, fetched(file_name, content), prepared, round_name, "official")
    materialize(con)
    return prepared, outcome


def fetched(file_name: str, content: bytes) -> Fetched:
    """What a fetch returns, for content made in the test."""
    return Fetched.of("fuzz://drifted", file_name, content)


def canonical_rows(con, exclude: set[int]) -> pl.DataFrame:
    """Every loaded row with its resolved identity, but those of the excluded records. Record numbers
    are positions in the file: a drifted file keeps every record where the original had it. Columns
    that read other records of the file (a 99.9 result repeating the entry's 99 one; an inferred flag
    every result of a scenario carries) may move with a drifted record, and are left out."""
    frame = db.query_frame(con, "SELECT * FROM stg_results ORDER BY record_no, metric, units")
    return frame.filter(~pl.col("record_no").is_in(sorted(exclude))).drop(
        "extra", "repeats_lower_target", "not_comparable_because")


@pytest.fixture(scope="module")
def baselines(tmp_path_factory):
    """The unmodified files loaded: the rows every untouched record must reproduce."""
    out = {}
    for fmt in ("final", "checker_csv"):
        con = db.connect(str(tmp_path_factory.mktemp(fmt) / "baseline.duckdb"))
        d = Drifted(real(fmt), fmt)
        load_into(con, d.content(), d.file_name)
        out[fmt] = canonical_rows(con, set())
        con.close()
    return out


@settings(max_examples=12, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data(), fmt=st.sampled_from(["final", "checker_csv"]))
@pytest.mark.slow  # a fuzz: 12 drifted rounds loaded (~22 s)
def test_drifted_round_loads_every_unbroken_row_and_names_every_new_term(data, fmt, baselines, tmp_path):
    d = Drifted(real(fmt), fmt)
    for drift in data.draw(st.lists(st.sampled_from(DRIFTS), min_size=1, max_size=len(DRIFTS), unique=True)):
        drift(d, data)
    if data.draw(st.booleans()):
        broken_records(d, data)

    path = tmp_path / f"{uuid.uuid4().hex}.duckdb"  # a new warehouse per example
    with db.connect(str(path)) as con:
        prepared, outcome = load_into(con, d.content(), d.file_name)
        v = prepared.validated

        # only what is broken is quarantined, each with its reason
        assert outcome.rows_read == len(d.records)
        quarantined = dict(zip(v.quarantine["record_no"], v.quarantine["reasons"]))
        assert quarantined.keys() == d.broken.keys(), quarantined
        for record_no, reasons in zip(v.quarantine["record_no"], v.quarantine["reasons"]):
            assert any(r.startswith(d.broken[record_no]) for r in reasons), reasons

        # every new term is in drift, and nothing else is
        drift = {(k, t) for k, t in con.execute("SELECT kind, term FROM drift").fetchall()}
        assert drift == d.new_terms

        # untouched rows are exactly what the unmodified file gives
        changed = d.touched | set(d.broken)
        ids = ["result_id"] if d.entries_changed else []
        assert_frame_equal(canonical_rows(con, changed).drop(ids),
                           baselines[fmt].filter(~pl.col("record_no").is_in(sorted(changed))).drop(ids))
