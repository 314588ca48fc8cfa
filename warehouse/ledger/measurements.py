"""Your own measurements, loaded (`mlperf-wh measurements load FILE`): each run validated
(schemas.measurements.OwnRun), a bad run quarantined with its reasons, a file no run of which loads
refused whole; the same bytes with the same options loaded again change nothing; a file loaded
again from the same path with other bytes, or with other options, replaces its earlier runs.
Lineage: measurement_files (path, sha256, size, when, the options given)."""
from __future__ import annotations

import hashlib
import json
import math
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path

import duckdb
import polars as pl

from schemas import polars_types
from schemas.failures import Failure, failures_of
from schemas.measurements import VERIFICATION, OwnRequest, OwnRun
from warehouse.errors import ExpectedFailure
from warehouse.inputs import read_bounded
from warehouse.ledger.measurement_formats import NoRuns, RawRun, detect_format, read_file
from warehouse.store import db


class MeasurementError(ExpectedFailure, ValueError):
    """No run of the file can be loaded: nothing of it is."""


@dataclass(frozen=True)
class RunOptions:
    """What the command line says of every run of a file (the files of serving benchmarks name no
    accelerator). A value the file leaves empty is filled; one it states otherwise is a conflict."""
    accelerator: str | None = None
    accelerators: int | None = None
    system: str | None = None
    label: str | None = None


@dataclass
class Prepared:
    fmt: str
    tool: str
    sha256: str
    runs: pl.DataFrame        # OwnRun rows that passed
    requests: pl.DataFrame    # OwnRequest rows of those runs
    quarantine: pl.DataFrame  # file_sha256, run_no, raw_run, reasons
    runs_read: int
    notes: list[str] = field(default_factory=list)  # old column names read as the marts' names


@dataclass
class MeasurementLoad:
    path: str
    status: str               # loaded | replaced | unchanged | emptied
    fmt: str
    tool: str
    runs_read: int
    runs_loaded: int
    runs_quarantined: int
    run_ids: list[str] = field(default_factory=list)
    quarantined: list[str] = field(default_factory=list)  # "run N: reason; reason"
    notes: list[str] = field(default_factory=list)  # old column names read as the marts' names


# Option -> (run field it fills, how the reason names it).
OPTION_FIELDS = {"accelerator": "accelerator", "accelerators": "accelerators", "system": "system", "label": "label"}
REQUIRED_WORDS = {
    "accelerator_raw": "accelerator: none named (the file names none: give --accelerator NAME)",
    "accelerators": "accelerator_count: none given (the file gives none: give --accelerator-count N)",
    "model_id": "model_id: missing",
    "output_tokens_per_second": "output_tokens_per_second: missing (no generated-token throughput)",
}
# The tables a load writes (the views reading them are rebuilt after it).
MEASUREMENT_TABLES = ("measurement_files", "own_measurements", "own_measurement_requests", "own_measurement_quarantine")
SHOWN_REQUESTS = 10  # request problems named per run; the others are counted
QUARANTINE_SCHEMA = {"file_sha256": pl.String, "run_no": pl.Int64, "raw_run": pl.String,
                     "reasons": pl.List(pl.String)}


def prepare(name: str, content: bytes, fmt: str | None = None, options: RunOptions = RunOptions()) -> Prepared:
    """The runs of a file, validated, and the runs quarantined with every reason: pure."""
    fmt = fmt or detect_format(name, content)
    read = read_file(name, content, fmt)
    sha = hashlib.sha256(content).hexdigest()
    rows = [_run_row(run, read.tool, sha, options) for run in read.runs]
    frame = pl.DataFrame(rows, schema=polars_types(OwnRun))
    reasons = {run.run_no: list(run.problems) for run in read.runs}
    for failure in failures_of(OwnRun, frame):
        for index in _failed_rows(failure, frame):
            reasons[frame["run_no"][index]].append(_describe(failure, frame.row(index, named=True)))
    requests = _requests_frame(read.runs, sha)
    request_reasons: dict[int, list[str]] = {}
    for failure in failures_of(OwnRequest, requests.drop("run_no")):
        for index in ([failure.index] if failure.index is not None else range(requests.height)):
            request = requests.row(index, named=True)
            request_reasons.setdefault(request["run_no"], []).append(
                f"request {request['request_no']}: " + failure.message(request.get(failure.column, failure.got)))
    for run_no, found in request_reasons.items():
        reasons[run_no] += found[:SHOWN_REQUESTS] + (
            [f"and {len(found) - SHOWN_REQUESTS:,} more request problems"] if len(found) > SHOWN_REQUESTS else [])
    bad = {run_no for run_no, found in reasons.items() if found}
    good = frame.filter(~pl.col("run_no").is_in(list(bad)))
    requests = requests.filter(~pl.col("run_no").is_in(list(bad))).drop("run_no")
    quarantine = pl.DataFrame(
        [{"file_sha256": sha, "run_no": run.run_no, "raw_run": _as_json(run.raw),
          "reasons": list(dict.fromkeys(reasons[run.run_no]))} for run in read.runs if run.run_no in bad],
        schema=QUARANTINE_SCHEMA)
    return Prepared(fmt, read.tool, sha, good, requests, quarantine, len(read.runs), read.notes)


def _requests_frame(runs: list[RawRun], sha: str) -> pl.DataFrame:
    """Every run's per-request columns as one frame, built a column at a time."""
    schema = {"run_no": pl.Int64, **polars_types(OwnRequest)}
    frames = [pl.DataFrame({"run_id": [f"{sha[:12]}-{run.run_no}"] * len(run.requests["request_no"]),
                            "run_no": [run.run_no] * len(run.requests["request_no"]), **run.requests},
                           schema=schema) for run in runs if run.requests]
    return pl.concat(frames) if frames else pl.DataFrame(schema=schema)


def load_measurements(con: duckdb.DuckDBPyConnection, path: Path, fmt: str | None = None,
                      options: RunOptions = RunOptions(), allow_empty: bool = False) -> MeasurementLoad:
    """Load one file in one transaction, or raise MeasurementError and change nothing. A file with no
    run would remove the runs its path loaded before: refused unless `allow_empty`."""
    path = Path(path)
    content = read_bounded(path, "measurements", MeasurementError)
    try:
        if not content.strip():
            raise NoRuns(f"{path.name}: an empty file")
        prepared = prepare(path.name, content, fmt, options)
    except NoRuns as exc:
        if not allow_empty:
            raise MeasurementError(f"{path}: {exc} (an empty file would remove every run it loaded "
                                   "before: --allow-empty to load it anyway)") from None
        return _empty_file(con, path)
    outcome = MeasurementLoad(str(path), "loaded", prepared.fmt, prepared.tool, prepared.runs_read,
                              prepared.runs.height, prepared.quarantine.height,
                              prepared.runs["run_id"].to_list(), _quarantine_lines(prepared.quarantine),
                              prepared.notes)
    if prepared.runs.height == 0:
        raise MeasurementError(f"{path}: no run can be loaded ({'; '.join(outcome.quarantined)}); "
                               "nothing was loaded")
    given = json.dumps({k: v for k, v in asdict(options).items() if v is not None}, sort_keys=True)
    where = str(path.absolute())
    earlier = con.execute("SELECT sha256, options FROM measurement_files WHERE path = ? OR sha256 = ?",
                          [where, prepared.sha256]).fetchall()
    if (prepared.sha256, given) in earlier:
        outcome.status = "unchanged"
        return outcome
    with db.transaction(con):
        for sha, _ in earlier:
            _forget(con, sha)
        _insert(con, prepared, where, path.name, len(content), given)
    outcome.status = "replaced" if earlier else "loaded"
    return outcome


def _empty_file(con: duckdb.DuckDBPyConnection, path: Path) -> MeasurementLoad:
    """--allow-empty: the runs this path loaded before are removed, nothing is added."""
    earlier = con.execute("SELECT sha256 FROM measurement_files WHERE path = ?", [str(path.absolute())]).fetchall()
    with db.transaction(con):
        for (sha,) in earlier:
            _forget(con, sha)
    return MeasurementLoad(str(path), "emptied", "empty", "none", 0, 0, 0)


def _run_row(run: RawRun, tool: str, sha: str, options: RunOptions) -> dict:
    fields = dict(run.fields)
    for option, target in OPTION_FIELDS.items():
        given, stated = getattr(options, option), fields.get(target)
        if given is not None and stated is not None and str(given) != str(stated):
            run.problems.append(f"{target}: the file says {stated!r}, --{option} says {given!r}")
        elif given is not None:
            fields[target] = given
    row = {name: fields.get(name) for name in polars_types(OwnRun)}
    row.update(run_id=f"{sha[:12]}-{run.run_no}", file_sha256=sha, run_no=run.run_no, tool=tool,
               accelerator_raw=fields.get("accelerator"), verification=VERIFICATION)
    return row


def _failed_rows(failure: Failure, frame: pl.DataFrame) -> list[int]:
    if failure.index is not None:
        return [failure.index]
    if failure.column is None and failure.check == "a number is infinite or not a number":
        floats = [c for c, t in frame.schema.items() if t == pl.Float64]
        mask = frame.select(~pl.all_horizontal(pl.col(c).is_finite().fill_null(True) for c in floats)).to_series()
        return [i for i, bad in enumerate(mask) if bad]
    raise RuntimeError(f"own measurements failed a frame-level check: {failure}")


def _describe(failure: Failure, row: dict) -> str:
    if failure.check == "not_nullable" and failure.column in REQUIRED_WORDS:
        return REQUIRED_WORDS[failure.column]
    if failure.column is None:
        bad = [f"{c} ({v!r})" for c, v in row.items() if isinstance(v, float) and not math.isfinite(v)]
        return f"{failure.check}: {', '.join(bad)}"
    return failure.message(row.get(failure.column, failure.got))


def _quarantine_lines(quarantine: pl.DataFrame) -> list[str]:
    return [f"run {run_no}: {'; '.join(reasons)}" for run_no, reasons in quarantine.select("run_no", "reasons").iter_rows()]


def _as_json(raw) -> str:
    return json.dumps(raw, ensure_ascii=False, default=str)


def _forget(con: duckdb.DuckDBPyConnection, sha: str) -> None:
    con.execute("DELETE FROM own_measurement_requests WHERE run_id IN "
                "(SELECT run_id FROM own_measurements WHERE file_sha256 = ?)", [sha])
    for table, column in (("own_measurements", "file_sha256"), ("own_measurement_quarantine", "file_sha256"),
                          ("measurement_files", "sha256")):
        con.execute(f"DELETE FROM {table} WHERE {column} = ?", [sha])


def _insert(con, prepared: Prepared, where: str, file_name: str, size: int, given: str) -> None:
    files = pl.DataFrame([{
        "sha256": prepared.sha256, "path": where, "file_name": file_name, "format": prepared.fmt,
        "tool": prepared.tool, "bytes": size, "loaded_at": datetime.now(timezone.utc),
        "runs_read": prepared.runs_read, "runs_loaded": prepared.runs.height,
        "runs_quarantined": prepared.quarantine.height, "options": given}])
    with db.registered(con, _files=files, _runs=prepared.runs, _requests=prepared.requests,
                       _quarantine=prepared.quarantine):
        con.execute("INSERT INTO measurement_files BY NAME SELECT * FROM _files")
        con.execute("INSERT INTO own_measurements BY NAME SELECT * FROM _runs")
        con.execute("INSERT INTO own_measurement_requests BY NAME SELECT * FROM _requests")
        con.execute("INSERT INTO own_measurement_quarantine BY NAME SELECT * FROM _quarantine")
