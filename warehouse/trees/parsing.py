"""Submission trees: where a result's LoadGen summary and system description live, and pure parsers
for both (text/bytes -> one flat record). No I/O here.

Every result row names its run folder (`Location`, e.g.
`./closed/NVIDIA/results/<platform>/<benchmark>/<scenario>/performance/run_1`; rounds before v6.0
leave out `performance/run_1`). The run's `mlperf_log_summary.txt` is in that folder; the system is
described by `<division>/<submitter>/systems/<platform>.json`.
"""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from dataclasses import dataclass

from schemas.endpoints import LOADGEN, RUN_FILES
from warehouse.inputs import SIGNED_OR_UNSIGNED_64, InputRefused, json_error, load_json, load_json_keeping_last
from schemas.loadgen import (EARLY_STOPPING_PERCENTILES, PERCENTILE_PREFIX, PERCENTILES, SUMMARY_COLUMNS,
                             SUMMARY_KEYS, SYSTEM_COUNT_FIELDS, SYSTEM_TEXT_FIELDS)

SUMMARY_FILE = "mlperf_log_summary.txt"
RUN_SUFFIX = "performance/run_1"


class UnparsableFile(ValueError):
    """The file cannot be read as what it should be; `reasons` lists every problem found."""

    def __init__(self, label: str, reasons: list[str]):
        super().__init__(f"{label}: " + "; ".join(reasons))
        self.reasons = reasons


# ---------------------------------------------------------------------------------------------
# paths


@dataclass(frozen=True)
class RunFolder:
    """A result's run folder, relative to the round repository's root."""
    path: str                  # closed/NVIDIA/results/<platform>/<benchmark>/<scenario>/performance/run_1

    @property
    def parts(self) -> list[str]:
        return self.path.split("/")

    @property
    def summary_path(self) -> str:
        return f"{self.path}/{SUMMARY_FILE}"

    @property
    def scenario_path(self) -> str:
        """<division>/<submitter>/results/<platform>/<benchmark>/<scenario>: the endpoint harness
        writes some of its files here, beside performance/."""
        return self.path.removesuffix(f"/{RUN_SUFFIX}")

    @property
    def candidate_paths(self) -> list[str]:
        """Every file that can summarize the run, in the order they are looked for: LoadGen's summary
        first (schemas/endpoints.py RUN_FILES)."""
        return [f"{self.scenario_path}/{relative}" for relative, _ in RUN_FILES]

    @property
    def system_path(self) -> str:
        division, submitter, _results, platform = self.parts[:4]
        return f"{division}/{submitter}/systems/{platform}.json"


def run_folder(location: str | None) -> RunFolder | None:
    """The published Location -> its run folder; None when it does not look like one
    (`<division>/<submitter>/results/<platform>/<benchmark>/<scenario>[/performance/run_1]`)."""
    if not location:
        return None
    path = location.strip().removeprefix("./").strip("/")
    parts = path.split("/")
    if len(parts) < 6 or parts[2] != "results" or any(p in ("", ".", "..") for p in parts):
        return None
    if not path.endswith(RUN_SUFFIX):
        path = f"{path}/{RUN_SUFFIX}"
    return RunFolder(path)


# ---------------------------------------------------------------------------------------------
# mlperf_log_summary.txt

BOOLEAN_WORDS = {"yes": True, "no": False, "valid": True, "invalid": False}
# "50.00 percentile latency (ns)", "... first token latency (ns)", "... time to output token (ns)"
PERCENTILE_LINE = re.compile(
    r"^(\d+\.\d+) percentile (latency|first token latency|time to output token) \(ns\)$")
# The result line of latency scenarios, "90th percentile latency (ns)" or "99.0th ... (ns)".
RESULT_LATENCY_LINE = re.compile(r"^(\d+(?:\.\d+)?)th percentile latency \(ns\)$")
# "* Early stopping 90th percentile estimate" / "... 99.0th ...": the latency scenarios' metric.
EARLY_STOPPING_LINE = re.compile(r"^\* early stopping (\d+(?:\.\d+)?)th percentile estimate$")
# "Early Stopping Result:", "TTFT Early Stopping Result:", "TPOT Early Stopping Result:" open a block.
EARLY_STOPPING_BLOCK = re.compile(r"^(ttft |tpot )?early stopping result:$")
RESULT_TTFT_LINE = re.compile(r"^(\d+(?:\.\d+)?)th first token percentile latency \(ns\)$")
INTEGER_TEXT = re.compile(r"-?\d+")
COUNT_LINE = re.compile(r"^(\d+|no) (warning|error)s? encountered", re.IGNORECASE)
BOILERPLATE = {"mlperf results summary", "additional stats", "test parameters used"}

REQUIRED_SUMMARY_FIELDS = ("loadgen_scenario", "mode", "result_valid")


def _typed(value: str, kind: str):
    """LoadGen's text -> a Python value; ValueError names what was expected."""
    if kind == "text":
        return value
    if kind == "int":
        if INTEGER_TEXT.fullmatch(value) is None:
            raise ValueError(f"{_shown(value)} is not an integer")
        if len(value) > 20 and len(value.lstrip("-")) > 20:  # an unsigned 64-bit seed has 20 digits; out_of_bounds checks the rest
            raise ValueError(f"an integer of {len(value.lstrip('-'))} digits, beyond the bound of 64-bit integers")
        return int(value)
    if kind == "bool":
        if value.lower() not in BOOLEAN_WORDS:
            raise ValueError(f"{value!r} is not Yes/No/VALID/INVALID")
        return BOOLEAN_WORDS[value.lower()]
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{_shown(value)} is not a number") from None
    if not math.isfinite(number):
        raise ValueError(f"{_shown(value)} is not a finite number")
    return number


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} characters)"


@lru_cache(maxsize=4096)  # a few hundred distinct keys across every round's summaries
def _column_for(key: str, block: str) -> tuple[str, str] | None:
    """The column a LoadGen key fills, or None for a key nobody maps (kept as an unparsed line).
    `block` is the early-stopping block the line is in: '', 'ttft_' or 'tpot_'."""
    lowered = key.lower()
    if lowered in SUMMARY_KEYS:
        return SUMMARY_KEYS[lowered]
    match = PERCENTILE_LINE.match(lowered)
    if match and match.group(1) in PERCENTILES:
        return f"{PERCENTILE_PREFIX[match.group(2)]}_{PERCENTILES[match.group(1)]}_ns", "int"
    if RESULT_LATENCY_LINE.match(lowered):
        return "result_latency_ns", "int"
    if RESULT_TTFT_LINE.match(lowered):
        return "result_ttft_ns", "int"
    match = EARLY_STOPPING_LINE.match(lowered)
    if match and float(match.group(1)) in EARLY_STOPPING_PERCENTILES:
        return f"{block}early_stopping_{EARLY_STOPPING_PERCENTILES[float(match.group(1))]}_ns", "int"
    return None


@lru_cache(maxsize=4096)
def _mapped_key(key: str, block: str) -> tuple[str, str] | None:
    """_column_for of a line's key, read before the line's other checks (a line a column takes is
    most lines): None for a key whose line those checks would take first, a warning or error count
    (COUNT_LINE), an early-stopping block's opening, or "Per-sample latency" (what they match lies
    before the line's first colon, so its key decides)."""
    lowered = key.strip().lower()
    if COUNT_LINE.match(key) or lowered.startswith("per-sample latency") or lowered.endswith("early stopping result"):
        return None
    return _column_for(key.strip(), block)


def _result_percentile(key: str) -> float | None:
    """For the latency scenarios' result line, the percentile it names (90 of '90th ...')."""
    match = RESULT_LATENCY_LINE.match(key.lower())
    return float(match.group(1)) if match else None


def parse_summary(content: bytes, label: str) -> dict:
    """mlperf_log_summary.txt -> {column: value} with every SUMMARY_COLUMNS key (None when the file
    does not print it), plus `unparsed_lines`: every line no column takes, kept verbatim.
    Raises UnparsableFile with every reason when the text is not a LoadGen summary."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnparsableFile(label, [f"not valid UTF-8 at byte {exc.start}"]) from exc
    record: dict = dict.fromkeys(SUMMARY_COLUMNS)
    unparsed, reasons, block = [], [], ""
    per_sample = False  # past "Per-sample latency:" (MultiStream before v2.0 prints per-query, then per-sample)
    for number, raw_line in enumerate(text.splitlines(), start=1):
        line = raw_line.strip()
        key, sep, value = line.partition(":")
        mapped = _mapped_key(key, block) if sep else None
        if mapped is None:
            if not line or not line.strip("="):
                continue
            lowered = line.lower()
            if lowered in BOILERPLATE:
                continue
            count = COUNT_LINE.match(line) if "encountered" in lowered else None
            if count:
                column = "warnings" if count.group(2).lower() == "warning" else "errors"
                record[column] = 0 if count.group(1).lower() == "no" else int(count.group(1))
                continue
            opens = EARLY_STOPPING_BLOCK.match(lowered) if lowered.endswith("result:") else None
            if opens:
                block = (opens.group(1) or "").strip() + "_" if opens.group(1) else ""
                unparsed.append(line)
                continue
            per_sample = per_sample or lowered.startswith("per-sample latency")
            mapped = _column_for(key.strip(), block) if sep else None
            if mapped is None:
                unparsed.append(line)
                continue
        column, kind = mapped
        try:
            typed = _typed(value.strip(), kind)
        except ValueError as exc:
            reasons.append(f"line {number} ({key.strip()}): {exc}")
            continue
        if record[column] is not None and record[column] != typed and not (per_sample and column.startswith("latency_")):
            reasons.append(f"line {number} ({key.strip()}): {typed!r} contradicts the earlier "
                           f"{record[column]!r}")
            continue
        record[column] = typed
        if column == "result_latency_ns":
            record["result_latency_percentile"] = _result_percentile(key.strip())
    if record["loadgen_scenario"]:  # "Multi Stream", "Single Stream" before v0.7
        record["loadgen_scenario"] = record["loadgen_scenario"].replace(" ", "")
    missing = [c for c in REQUIRED_SUMMARY_FIELDS if record[c] is None]
    if missing:
        reasons.append("not a LoadGen summary: no " + ", ".join(missing) + " line")
    if reasons:
        raise UnparsableFile(label, reasons)
    record["unparsed_lines"] = unparsed
    record["harness"] = LOADGEN
    return record


# ---------------------------------------------------------------------------------------------
# systems/<platform>.json

REQUIRED_SYSTEM_FIELDS = ("system_name", "accelerator_model_name", "host_processor_model_name")
# The fields a result row takes from its system description (trees/rebuilding.py _row, and
# sql/staging/stg_results.sql: accelerators per node, notes, accelerator name): a key of these given
# twice with two values leaves the row's value to a guess, so the description is quarantined.
SYSTEM_ROW_FIELDS = ("system_name", "status", "system_type", "accelerator_model_name", "accelerators_per_node",
                     "number_of_nodes", "host_processor_model_name", "host_processors_per_node", "framework",
                     "hw_notes", "sw_notes")
CAPACITY = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(TB|TiB|GB|GiB|MB|MiB)\b", re.IGNORECASE)
GB_PER = {"tb": 1000.0, "tib": 1024.0, "gb": 1.0, "gib": 1.0, "mb": 0.001, "mib": 1 / 1024}


def capacity_gb(text: str | None) -> float | None:
    """'180 GB' -> 180.0, '2 TB' -> 2000.0 (TiB/GiB/MiB read as binary); None when it is not
    written as one number and a unit (e.g. '8x 96 GB' or empty)."""
    match = CAPACITY.match(text or "")
    if not match:
        return None
    return float(match.group(1)) * GB_PER[match.group(2).lower()]


def _count(value) -> int | None:
    """Counts arrive as 8, "8", 8.0 or "": a whole number, or None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _text(value) -> str | None:
    if value is None:
        return None
    text = value if isinstance(value, str) else json.dumps(value)
    return text.strip() or None


def decode_json_object(content: bytes, label: str) -> dict:
    """A tree file's JSON object, read as every JSON input is (warehouse/inputs.py load_json: nesting
    and integers bounded, a key given twice with two values refused) and with finite numbers only
    (NaN, Infinity, 1e999999 refused). UnparsableFile naming what is wrong."""
    return _json_object(content, label, lambda *args, **bounds: (load_json(*args, **bounds), []))[0]


def _json_object(content: bytes, label: str, loader) -> tuple[dict, list]:
    """`loader` (load_json_keeping_last, or load_json with no repeats) over the file's text, its
    failures as UnparsableFile: the object and the keys it gave twice."""
    try:
        loaded = loader(content.decode("utf-8-sig"), label, finite=True, integers=SIGNED_OR_UNSIGNED_64)
    except UnicodeDecodeError as exc:
        raise UnparsableFile(label, [f"not valid UTF-8 at byte {exc.start}"]) from exc
    except json.JSONDecodeError as exc:
        raise UnparsableFile(label, [json_error(exc)]) from exc
    except InputRefused as exc:
        raise UnparsableFile(label, [str(exc).removeprefix(f"{label}: ")]) from None
    data = loaded[0]
    if not isinstance(data, dict):
        raise UnparsableFile(label, [f"expected a JSON object, found {json_type(data)}"])
    return loaded


def json_type(value) -> str:
    """A JSON value's type in JSON's words (null, list, string...), for a reason."""
    names = {type(None): "null", bool: "a boolean", int: "a number", float: "a number", str: "a string",
             list: "a list", dict: "an object"}
    return names.get(type(value), type(value).__name__)


def decode_system(content: bytes, label: str) -> tuple[dict, list[str]]:
    """A system description's JSON object read as MLCommons' checker reads it (json.load: a key given
    twice takes its last value), within every other bound of decode_json_object; and each key given
    twice with two values, described. UnparsableFile when a field a result row uses is one of them."""
    data, repeats = _json_object(content, label, load_json_keeping_last)
    ambiguous = [r for r in repeats if r.top_level and r.key in SYSTEM_ROW_FIELDS]
    if ambiguous:
        raise UnparsableFile(label, [f"the key {r.key!r} twice with two values "
                                     f"({r.shown_values()}): "
                                     "a field the result rows use, so which one they read is a guess"
                                     for r in ambiguous])
    return data, [r.describe() if r.top_level else f"(in a nested object) {r.describe()}" for r in repeats]


def parse_system(content: bytes, label: str) -> dict:
    """systems/<platform>.json -> the published fields typed (text stripped, counts as integers,
    memory capacities also in GB), `untyped_fields` naming every field present but not typeable,
    `repeated_keys` every key given twice with two values (read as the checker reads it, the last
    value; decode_system), and `raw_json` as read. Raises UnparsableFile with every reason."""
    data, repeated = decode_system(content, label)
    missing = [f for f in REQUIRED_SYSTEM_FIELDS if f not in data]
    if missing:
        raise UnparsableFile(label, [f"required field(s) missing: {', '.join(missing)} "
                                     f"(top-level keys: {', '.join(list(data)[:5])})"])
    record = {field: _text(data.get(field)) for field in SYSTEM_TEXT_FIELDS}
    untyped = []
    for field in SYSTEM_COUNT_FIELDS:
        record[field] = _count(data.get(field))
        if record[field] is None and _text(data.get(field)) is not None:
            untyped.append(field)
    record["host_memory_gb"] = capacity_gb(record["host_memory_capacity"])
    record["accelerator_memory_gb"] = capacity_gb(record["accelerator_memory_capacity"])
    record["untyped_fields"] = untyped
    record["repeated_keys"] = repeated
    record["raw_json"] = json.dumps(data, ensure_ascii=False, sort_keys=True)
    return record
