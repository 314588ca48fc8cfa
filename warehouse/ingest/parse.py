"""Parse the three published formats into one canonical, long polars frame. Pure functions.

Formats:
- ``final``: summary_results.json, MLCommons' final table. One record per (entry, model,
  scenario) with ``Performance_Result`` and an optional ``Power_Result``; carries ``ID``.
- ``checker_json`` / ``checker_csv``: the submission checker's output (summary.json keyed by
  row number, summary.csv). One record per result; power results are records of their own
  (units Watts or millijoules); no result IDs, so they are assigned as the final-report tool does.

Canonical frame: one row per (record, metric); ``metric`` is ``performance`` or ``power``.

Parity with MLCommons' final-report tool (tools/submission/generate_final_report.py), for checker
input: the same column renames, the same result IDs (entries numbered in (Category, Availability,
Submitter, unique id) order), 'on-premise' read as 'available', '-' as no accelerator, and scenario
names in the checker's canonical spelling (its SCENARIO_MAPPING folds case). Where we differ, on
purpose:
- the tool keeps only the (benchmark, scenario) pairs of its hard-coded table for that round (and
  fails on a benchmark it does not list); we keep every row, so a new benchmark or scenario loads
  and is reported as drift instead of being lost;
- the tool silently keeps the first of two rows with the same (ID, UsedModel, Scenario, Units); we
  keep the first in file order and quarantine the others with their reason, so nothing vanishes;
- the tool merges a result's power row into its performance record; we keep one row per metric.
"""
from __future__ import annotations

import csv
import io
import json

import polars as pl

from schemas.raw import CHECKER_TO_FINAL, MAPPED, MODELS, missing_columns, unknown_columns
from schemas.results import SCENARIOS, is_power_unit, unit_family
from warehouse.errors import ExpectedFailure
from warehouse.inputs import csv_header, json_error, load_json

RECORD_NO = "_record_no"
RECORD = "_record"  # the record as the file has it (a Python object): JSON only for quarantined ones
RECORD_EXTRA = "_record_extra"
BOOKKEEPING = {RECORD_NO, RECORD, RECORD_EXTRA}

# MLCommons' submission checker maps scenario names case-insensitively (its SCENARIO_MAPPING:
# "singlestream" -> "SingleStream", ...), and the final-report tool publishes that spelling. We
# also ignore spaces, '-' and '_' ("Single Stream"); a name that maps to none is kept as published.
_SCENARIO_SPELLING = {name.lower(): name for name in SCENARIOS}


class MalformedFile(ExpectedFailure, ValueError):
    """The whole file is rejected; the message names the file and what is wrong."""


def detect_format(file_name: str) -> str:
    name = file_name.lower()
    if name.endswith("summary_results.json"):
        return "final"
    if name.endswith(".json"):
        return "checker_json"
    if name.endswith(".csv"):
        return "checker_csv"
    raise MalformedFile(f"{file_name}: cannot tell the format from the name "
                        "(expected summary_results.json, summary.json or summary.csv)")


def read_raw(content: bytes, fmt: str, label: str) -> pl.DataFrame:
    """Bytes -> raw frame: every field as a string (null when absent), plus record number, the
    record itself and its unmapped fields as JSON. Built a column at a time; a text value (most of
    them) is taken as it is."""
    text = utf8_text(content, label)
    records = {"final": _final_records, "checker_json": _checker_json_records,
               "checker_csv": _csv_records}[fmt](text, label)
    if not records:
        raise MalformedFile(f"{label}: holds no result records")
    keys: dict[str, None] = {}
    for _, record in records:
        keys.update(dict.fromkeys(record))
    if any(key != key.strip() for key in keys):
        records = [(number, {key.strip(): value for key, value in record.items()}) for number, record in records]
        keys = dict.fromkeys(key.strip() for key in keys)
    mapped = MAPPED[fmt]
    try:
        data = {
            RECORD_NO: [number for number, _ in records],
            RECORD: [record for _, record in records],
            RECORD_EXTRA: [_extra_json(record, mapped) for _, record in records],
        }
        for column in keys:
            data[column] = [v if v is None or type(v) is str else _as_text(v)
                            for v in (record.get(column) for _, record in records)]
    except RecursionError:
        raise MalformedFile(f"{label}: a record is nested too deeply to be a result") from None
    schema = {RECORD_NO: pl.Int64, RECORD: pl.Object, RECORD_EXTRA: pl.String,
              **{c: pl.String for c in keys}}
    return pl.DataFrame(data, schema=schema)


def _extra_json(record: dict, mapped) -> str | None:
    extra = {key: value for key, value in record.items() if key not in mapped}
    return json.dumps(extra, ensure_ascii=False) if extra else None


def utf8_text(content: bytes, label: str, error: type[Exception] | None = None) -> str:
    """`content` as text (a byte-order mark dropped), or `error` (MalformedFile) naming the first bad byte."""
    try:
        return content.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise (error or MalformedFile)(f"{label}: not valid UTF-8 at byte {exc.start} ({exc.reason})") from None


def _load_json(text: str, label: str):
    """The table within warehouse.inputs' bounds (nesting, 64-bit integers, each key once per object:
    a row number or a field given twice would silently lose one)."""
    try:
        return load_json(text, label, MalformedFile)
    except json.JSONDecodeError as exc:
        raise MalformedFile(f"{label}: {json_error(exc)} (truncated or corrupt file?)") from exc


def _final_records(text: str, label: str) -> list[tuple[int, dict]]:
    data = _load_json(text, label)
    if not isinstance(data, list):
        raise MalformedFile(f"{label}: expected a JSON array of result objects "
                            f"(the final summary_results.json format), found {type(data).__name__}")
    return [(i, _require_object(rec, label, i)) for i, rec in enumerate(data)]


def _checker_json_records(text: str, label: str) -> list[tuple[int, dict]]:
    data = _load_json(text, label)
    if not isinstance(data, dict):
        raise MalformedFile(f"{label}: expected a JSON object keyed by row number "
                            f"(the checker's summary.json format), found {type(data).__name__}")
    records = []
    for key, rec in data.items():
        if not str(key).isdigit():
            raise MalformedFile(f"{label}: key {key!r} is not a row number")
        records.append((int(key), _require_object(rec, label, key)))
    return sorted(records, key=lambda item: item[0])


def _csv_records(text: str, label: str) -> list[tuple[int, dict]]:
    csv_header(text, label, MalformedFile)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    if not reader.fieldnames:
        raise MalformedFile(f"{label}: empty CSV, no header")
    records = []
    for i, row in enumerate(reader):
        if None in row:
            raise MalformedFile(f"{label}: data row {i + 1} has more fields than the header")
        records.append((i, row))
    return records


def _require_object(record, label: str, position) -> dict:
    if not isinstance(record, dict):
        raise MalformedFile(f"{label}: record {position} is {type(record).__name__}, not an object")
    return record


def _as_text(value) -> str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, (int, float)):
        return repr(value)
    return json.dumps(value)


# ---------------------------------------------------------------------------------------------
# raw -> canonical


def to_final_layout(raw: pl.DataFrame, fmt: str, round_name: str) -> pl.DataFrame:
    """Checker frames take the final table's column names and get result IDs; final frames pass."""
    if fmt == "final":
        return raw
    frame = raw.rename({k: v for k, v in CHECKER_TO_FINAL.items() if k in raw.columns})
    frame = frame.rename({"Model": "UsedModel"}).rename({"MlperfModel": "Model"})
    return assign_result_ids(frame, round_name)


def normalize_availability(col: pl.Expr) -> pl.Expr:
    return pl.when(col == "on-premise").then(pl.lit("available")).otherwise(col)


def unique_entry_id(frame: pl.DataFrame) -> pl.Expr:
    """`{Suite}/{Category}/{Submitter}/{Platform}`, plus `/{UsedModel}` in the open division."""
    base = pl.concat_str([pl.col(c).fill_null("") for c in ("Suite", "Category", "Submitter", "Platform")],
                         separator="/")
    used = pl.col("UsedModel").fill_null("") if "UsedModel" in frame.columns else pl.lit("")
    return pl.when(pl.col("Category") == "open").then(base + "/" + used).otherwise(base)


def assign_result_ids(frame: pl.DataFrame, round_name: str) -> pl.DataFrame:
    """Number system entries exactly as MLCommons' generate_final_report.py does.

    Sort by (Category, Availability, Submitter, unique id) in plain string order and number the
    distinct unique ids from 1 in order of first appearance: ID = `{MAJOR.MINOR}-{NNNN}`.
    """
    version = round_name.lstrip("v")
    frame = frame.with_columns(
        normalize_availability(pl.col("Availability")).alias("Availability"),
    ).with_columns(unique_entry_id(frame).alias("Unique ID (e.g. for Audit)"))
    keys = ["Category", "Availability", "Submitter", "Unique ID (e.g. for Audit)"]
    ordered = frame.select(keys).fill_null("").sort(keys, maintain_order=True)
    numbering = (
        ordered.select(pl.col("Unique ID (e.g. for Audit)")).unique(maintain_order=True)
        .with_row_index("n", offset=1)
        .with_columns(pl.format(f"{version}-{{}}", pl.col("n").cast(pl.String).str.zfill(4)).alias("ID"))
        .drop("n")
    )
    return frame.join(numbering, on="Unique ID (e.g. for Audit)", how="left", maintain_order="left")


def _text(frame: pl.DataFrame, name: str) -> pl.Expr:
    """A column as stripped text, or null when the file does not carry it."""
    if name not in frame.columns:
        return pl.lit(None, dtype=pl.String)
    return pl.col(name).str.strip_chars()


def _number(frame: pl.DataFrame, name: str) -> pl.Expr:
    return _text(frame, name).replace("", None).cast(pl.Float64, strict=False)


def _count(frame: pl.DataFrame, name: str) -> pl.Expr:
    """Counts arrive as 8, "8", 1.0 or "" (CPU-only): integral numbers or null."""
    number = _number(frame, name)
    return pl.when(number.is_not_null() & (number == number.floor())).then(number).cast(pl.Int64)


def _long_metrics(frame: pl.DataFrame, fmt: str) -> pl.DataFrame:
    """One row per (record, metric) with value text and units."""
    if fmt == "final":
        perf = frame.with_columns(
            pl.lit("performance").alias("metric"),
            _text(frame, "Performance_Result").alias("value_text"),
            _text(frame, "Performance_Units").alias("units"),
        )
        has_power = _text(frame, "Power_Result").replace("", None).is_not_null()
        power = frame.filter(has_power).with_columns(
            pl.lit("power").alias("metric"),
            _text(frame, "Power_Result").alias("value_text"),
            _text(frame, "Power_Units").alias("units"),
        )
        return pl.concat([perf, power], how="vertical")
    units = _text(frame, "Units")
    return frame.with_columns(
        pl.when(is_power_unit(units)).then(pl.lit("power")).otherwise(pl.lit("performance")).alias("metric"),
        _text(frame, "Result").alias("value_text"),
        units.alias("units"),
    )


def verification_label(origin: str) -> pl.Expr:
    division, availability = pl.col("division"), pl.col("availability")
    if origin != "official":
        return pl.lit("unverified")
    return (
        pl.when(division.is_in(["open", "network"])).then(pl.lit("open"))
        .when((division == "closed") & (availability == "available")).then(pl.lit("verified"))
        .when((division == "closed") & (availability == "preview")).then(pl.lit("preview"))
        .when((division == "closed") & (availability == "rdi")).then(pl.lit("rdi"))
        .otherwise(pl.lit("unverified"))
    )


def canonical_scenario(scenario: pl.Expr) -> pl.Expr:
    key = scenario.str.replace_all(r"[\s_-]", "").str.to_lowercase()
    return key.replace_strict(_SCENARIO_SPELLING, default=scenario)


def canonical_frame(raw: pl.DataFrame, fmt: str, round_name: str, origin: str, source_id: str) -> pl.DataFrame:
    """Raw frame of any format -> canonical long frame (not yet validated).

    Names stay as published (accelerator, benchmark, submitter); only spellings that MLCommons'
    own tools treat as one (scenario case, availability 'on-premise') are folded."""
    f = _long_metrics(to_final_layout(raw, fmt, round_name), fmt)
    per_node = _count(f, "a#").replace(0, None)
    nodes = _count(f, "Nodes")
    published_total = pl.coalesce(_count(f, "Total Accelerators"), _count(f, "total_accelerators"))
    computed_total = nodes * per_node
    units = pl.col("units")
    out = f.select(
        pl.lit(round_name).alias("round"),
        _text(f, "Category").str.to_lowercase().replace("", None).alias("division"),
        normalize_availability(_text(f, "Availability").str.to_lowercase()).replace("", None)
        .alias("availability"),
        _text(f, "Suite").str.replace_all(r"\s", "").str.to_lowercase().replace("", None).alias("suite"),
        _text(f, "Submitter").alias("submitter"),
        _text(f, "System").alias("system"),
        _text(f, "Platform").alias("platform"),
        _text(f, "ID").replace("", None).alias("result_id"),
        _text(f, "Unique ID (e.g. for Audit)").alias("entry_id"),
        _text(f, "Model").alias("model"),
        pl.coalesce(_text(f, "UsedModel").replace("", None), _text(f, "Model")).alias("used_model"),
        canonical_scenario(_text(f, "Scenario")).alias("scenario"),
        pl.col("metric"),
        pl.col("value_text").replace("", None).cast(pl.Float64, strict=False).alias("value"),
        pl.col("value_text"),
        units.replace("", None),
        _text(f, "Accelerator").replace({"": None, "-": None, "N/A": None}).alias("accelerator_raw"),
        per_node.alias("accelerators_per_node"),
        nodes.alias("nodes"),
        # The file's own total wins (a GB300 NVL72 entry is 1 node of 72); a disagreement with
        # nodes x accelerators per node is flagged, not hidden.
        pl.when(published_total > 0).then(published_total).otherwise(computed_total)
        .alias("total_accelerators"),
        ((published_total > 0) & computed_total.is_not_null() & (published_total != computed_total))
        .fill_null(False).alias("accelerator_count_disagrees"),
        _text(f, "Processor").replace({"": None, "-": None, "N/A": None, "undefined": None}).alias("processor"),
        pl.coalesce(_count(f, "host_processors_per_node"), _count(f, "p#")).replace(0, None)
        .alias("processors_per_node"),
        _text(f, "Notes").replace("", None).alias("notes"),
        _text(f, "Software").alias("software"),
        _text(f, "weight_data_types").alias("weight_data_types"),
        _text(f, "Accuracy").alias("accuracy"),
        _text(f, "Accuracy").str.extract(r"TOKENS_PER_SAMPLE:\s*([0-9.]+)", 1)
        .cast(pl.Float64, strict=False).alias("tokens_per_sample"),
        _text(f, "inferred").is_in(["1", "1.0", "True", "true"]).alias("inferred"),
        pl.col(RECORD_EXTRA).alias("extra"),
        _text(f, "Location").replace("", None).alias("location"),
        pl.col(RECORD_NO),
    )
    family = unit_family(pl.col("units"))
    return out.with_columns(
        pl.when(pl.col("metric") == "power").then(False)
        .when(family == "rate").then(True)
        .when(family == "latency").then(False)
        .otherwise(None).alias("higher_is_better"),
        verification_label(origin).alias("verification"),
        pl.lit(source_id).alias("source_id"),
        pl.when(pl.col("entry_id").is_null() | (pl.col("entry_id") == ""))
        .then(unique_entry_id_from_canonical()).otherwise(pl.col("entry_id")).alias("entry_id"),
    )


def unique_entry_id_from_canonical() -> pl.Expr:
    base = pl.concat_str([pl.col(c).fill_null("") for c in ("suite", "division", "submitter", "platform")],
                         separator="/")
    return pl.when(pl.col("division") == "open").then(base + "/" + pl.col("used_model").fill_null("")) \
        .otherwise(base)


def parse(content: bytes, file_name: str, round_name: str, origin: str, source_id: str,
          label: str | None = None) -> tuple[pl.DataFrame, pl.DataFrame, list[str]]:
    """bytes -> (raw frame, canonical frame, unknown extra columns). Raises MalformedFile."""
    label = label or file_name
    fmt = detect_format(file_name)
    raw = read_raw(content, fmt, label)
    missing = missing_columns(raw, fmt)
    if missing:
        raise MalformedFile(f"{label}: required column(s) missing: {', '.join(missing)} "
                            f"(format {fmt}: {MODELS[fmt].description})")
    unknown = unknown_columns(raw, fmt, BOOKKEEPING)
    return raw, canonical_frame(raw, fmt, round_name, origin, source_id), unknown
