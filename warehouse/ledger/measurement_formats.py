"""Readers for the files serving benchmarks write, each to the same run fields (schemas.measurements).

Pure functions over bytes: no database, no file system. A file that cannot be read at all (not JSON,
cut short, a CSV without its required columns) raises MeasurementFileError in one line naming the
file; a run whose fields are wrong is returned with its problems, for the loader to quarantine.

- vllm: the JSON `vllm bench serve --save-result` writes (benchmarks/benchmark_serving.py before
  it), one object, or one per line with --append-result. Summary latencies are ms; the per-request
  arrays (--save-detailed) are seconds; `request_rate` is the string "inf" when unbounded; older
  versions spell `request_goodput:` with a colon.
- aiperf: AIPerf's profile_export_aiperf.json (metrics at the top level, or under `records` in its
  first versions) and GenAI-Perf's profile_export_genai_perf.json (the shape AIPerf copied): one
  `{unit, avg, p50, p99...}` object per metric, the load in `input_config`. Times are converted
  from the unit each metric states; throughputs are read by name (one GenAI-Perf version labels
  every non-time metric "requests/sec").
- csv: one row per run, the columns of CSV_COLUMNS (docs/ingest-reference.md, 'Own measurements'); `model_id` and
  `output_tokens_per_second` are required.
"""
from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from schemas.measurements import FORMATS, LATENCY_COLUMNS
from warehouse.errors import ExpectedFailure
from warehouse.inputs import INT64, complete_text, csv_header, json_error, load_json, marts_names, old_name_notes, text_of


class MeasurementFileError(ExpectedFailure, ValueError):
    """The file as a whole cannot be read: nothing of it is loaded."""


class NoRuns(MeasurementFileError):
    """The file holds no run at all (empty, or a CSV header alone)."""


@dataclass
class RawRun:
    """One run as read: its fields (not yet validated), the problems found reading them, its
    per-request rows, and the run as the file has it (what quarantine keeps)."""
    run_no: int
    fields: dict[str, Any]
    raw: Any
    problems: list[str] = field(default_factory=list)
    requests: dict[str, list] = field(default_factory=dict)  # column -> one value per request


@dataclass
class ReadFile:
    tool: str
    runs: list[RawRun]
    notes: list[str] = field(default_factory=list)  # the file's old column names, read as the marts' names


# The run fields a CSV may carry (and the fields every reader fills), in the order documented.
# Columns in the marts' names (accelerator_count, tokens_per_second); the old names (accelerators,
# output_tokens_per_second) are still read, with a note (sql/marts/_naming.toml, [inputs.measurements_csv]).
CSV_COLUMNS = ["label", "model_id", "accelerator", "accelerator_count", "system", "measured_at", "backend",
               "max_concurrency", "request_rate", "completed", "failed", "duration_s", "input_tokens",
               "output_tokens", "mean_input_tokens", "mean_output_tokens", "request_throughput",
               "tokens_per_second", "total_tokens_per_second", *LATENCY_COLUMNS,
               "tokens_per_second_per_user"]
CSV_REQUIRED = ["model_id", "tokens_per_second"]
# a column -> the run field it fills, where the two names differ
CSV_FIELDS = {"accelerator_count": "accelerators", "tokens_per_second": "output_tokens_per_second"}
CSV_COLUMNS_DOC = "docs/ingest-reference.md, 'Own measurements'"  # where CSV_COLUMNS are documented (a test checks)
INTEGERS = {"accelerators", "max_concurrency", "completed", "failed", "input_tokens", "output_tokens"}
TEXTS = {"label", "model_id", "accelerator", "system", "backend", "measured_at", "tool_version"}
TIME_UNITS_MS = {"ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1000.0, "sec": 1000.0}


def detect_format(name: str, content: bytes) -> str:
    """vllm, aiperf or csv, from the content (the name only breaks a tie); raises when none fits."""
    text = _text(name, content).lstrip()
    if not text.startswith(("{", "[")):
        if name.lower().endswith(".csv") or "model_id" in text.split("\n", 1)[0]:
            return "csv"
        raise MeasurementFileError(f"{name}: neither JSON nor a CSV with a model_id column; give --format "
                                   f"{'|'.join(FORMATS)}")
    document = _first_json(name, text)
    if isinstance(document, dict) and ("records" in document or "aiperf_version" in document
                                       or "input_config" in document or "schema_version" in document):
        return "aiperf"
    if isinstance(document, dict) and "model_id" in document:
        return "vllm"
    raise MeasurementFileError(f"{name}: JSON, but neither vllm bench serve's result (model_id, "
                               "output_throughput) nor AIPerf/GenAI-Perf's export (input_config and "
                               f"metrics); give --format {'|'.join(FORMATS)}")


def read_file(name: str, content: bytes, fmt: str) -> ReadFile:
    readers = {"vllm": read_vllm, "aiperf": read_aiperf, "csv": read_csv}
    if fmt not in readers:
        raise MeasurementFileError(f"{name}: unknown format {fmt!r}; one of {', '.join(FORMATS)}")
    return readers[fmt](name, content)


# --- vLLM ---------------------------------------------------------------------------------------

VLLM_FIELDS = {  # run field <- vllm key
    "label": "label", "model_id": "model_id", "max_concurrency": "max_concurrency",
    "completed": "completed", "failed": "failed", "duration_s": "duration",
    "input_tokens": "total_input_tokens", "output_tokens": "total_output_tokens",
    "request_throughput": "request_throughput", "output_tokens_per_second": "output_throughput",
    "total_tokens_per_second": "total_token_throughput",
    **{f"{m}_{s}_ms": f"{'p99' if s == 'p99' else s}_{m}_ms"
       for m in ("ttft", "tpot", "itl", "e2el") for s in ("mean", "median", "p99")},
}
VLLM_ARRAYS = ["input_lens", "output_lens", "ttfts", "latencies", "itls", "errors", "generated_texts",
               "start_times", "queue_times"]


def read_vllm(name: str, content: bytes) -> ReadFile:
    runs = []
    for run_no, document in enumerate(_json_documents(name, _text(name, content)), start=1):
        if not isinstance(document, dict):
            raise MeasurementFileError(f"{name}: run {run_no} is not a JSON object")
        runs.append(_vllm_run(run_no, document))
    return ReadFile("vllm", runs)


def _vllm_run(run_no: int, doc: dict) -> RawRun:
    run = RawRun(run_no, {}, doc)
    for target, key in VLLM_FIELDS.items():
        _put(run, target, doc.get(key), key)
    _put(run, "backend", doc.get("backend", doc.get("endpoint_type")), "backend")
    run.fields["request_rate"] = _request_rate(run, doc.get("request_rate"))
    run.fields["measured_at"] = _timestamp(run, doc.get("date"), "%Y%m%d-%H%M%S", "date")
    _means_per_request(run)
    _per_user_from_tpot(run)
    run.requests = _vllm_requests(run, doc)
    known = set(VLLM_FIELDS.values()) | set(VLLM_ARRAYS) | {"backend", "endpoint_type", "request_rate", "date"}
    # "request_goodput:" is how vLLM spelled the key from late 2024 to mid 2025
    run.fields["extra"] = _extra({k.rstrip(":"): v for k, v in doc.items() if k not in known})
    return run


def _request_rate(run: RawRun, value) -> float | None:
    """vLLM writes "inf" for an unbounded rate (the default): null here, as for every reader."""
    if isinstance(value, str) and value.strip().lower() in ("inf", "infinity"):
        return None
    rate = _number(run, value, "request_rate")
    return None if rate is not None and math.isinf(rate) and rate > 0 else rate


REQUEST_COLUMNS = ("request_no", "input_tokens", "output_tokens", "ttft_ms", "latency_ms", "tpot_ms", "error")


def _vllm_requests(run: RawRun, doc: dict) -> dict[str, list]:
    """The per-request arrays as columns (one list per column, not a dict per request: a run of
    100,000 requests is five lists, not 100,000 dicts). Seconds become ms."""
    arrays = {key: doc[key] for key in ("input_lens", "output_lens", "ttfts", "latencies", "errors")
              if isinstance(doc.get(key), list)}
    if not arrays:
        return {}
    lengths = {key: len(values) for key, values in arrays.items()}
    if len(set(lengths.values())) > 1:
        run.problems.append("per-request arrays differ in length ("
                            + ", ".join(f"{k} {n}" for k, n in lengths.items()) + ")")
        return {}
    count = next(iter(lengths.values()))
    missing = [None] * count
    ttfts = [_plain_number(v) for v in arrays.get("ttfts", missing)]
    latencies = [_plain_number(v) for v in arrays.get("latencies", missing)]
    outputs = [_plain_number(v) for v in arrays.get("output_lens", missing)]
    return {
        "request_no": list(range(1, count + 1)),
        "input_tokens": [_plain_int(v) for v in arrays.get("input_lens", missing)],
        "output_tokens": [_plain_int(v) for v in outputs],
        "ttft_ms": [None if t is None else t * 1000 for t in ttfts],
        "latency_ms": [None if t is None else t * 1000 for t in latencies],
        "tpot_ms": [(latency - ttft) / (output - 1) * 1000 if None not in (ttft, latency, output) and output > 1
                    else None for ttft, latency, output in zip(ttfts, latencies, outputs)],
        "error": [v or None for v in arrays.get("errors", missing)],
    }


# --- AIPerf / GenAI-Perf -----------------------------------------------------------------------

AIPERF_TIMES = {"ttft": "time_to_first_token", "tpot": "inter_token_latency", "itl": "inter_chunk_latency",
                "e2el": "request_latency"}
AIPERF_STATS = {"mean": "avg", "median": "p50", "p99": "p99"}


def read_aiperf(name: str, content: bytes) -> ReadFile:
    document = _first_json(name, _text(name, content))
    if not isinstance(document, dict):
        raise MeasurementFileError(f"{name}: not an AIPerf or GenAI-Perf export (a JSON object)")
    tool = "aiperf" if {"records", "aiperf_version", "schema_version"} & set(document) else "genai-perf"
    return ReadFile(tool, [_aiperf_run(document, tool)])


def _aiperf_run(doc: dict, tool: str) -> RawRun:
    metrics = doc["records"] if isinstance(doc.get("records"), dict) else {
        key: value for key, value in doc.items() if isinstance(value, dict) and "unit" in value}
    config = doc.get("input_config") if isinstance(doc.get("input_config"), dict) else {}
    run = RawRun(1, {}, doc)

    def avg(metric):
        entry = metrics.get(metric)
        return entry.get("avg") if isinstance(entry, dict) else None

    _put(run, "tool_version", doc.get("aiperf_version"), "aiperf_version")
    _put(run, "model_id", _first_of(config, ("endpoint", "model_names", 0), ("models", "items", 0, "name"),
                                    ("model", 0), ("model_names", 0)), "input_config model")
    _put(run, "max_concurrency", _load_setting(config, "concurrency"), "input_config concurrency")
    rate = _load_setting(config, "request_rate", phase_key="rate")
    run.fields["request_rate"] = None if rate is None else _request_rate(run, rate)
    _put(run, "backend", _first_of(config, ("endpoint", "type"), ("endpoint_type",)), "input_config endpoint type")
    _put(run, "completed", avg("request_count"), "request_count")
    _put(run, "failed", avg("error_request_count"), "error_request_count")
    _put(run, "duration_s", avg("benchmark_duration"), "benchmark_duration")
    _put(run, "mean_input_tokens", avg("input_sequence_length"), "input_sequence_length")
    _put(run, "mean_output_tokens", avg("output_sequence_length"), "output_sequence_length")
    _put(run, "input_tokens", avg("total_isl"), "total_isl")
    _put(run, "output_tokens", avg("total_output_tokens") or avg("total_osl"), "total_output_tokens")
    _put(run, "request_throughput", avg("request_throughput"), "request_throughput")
    _put(run, "output_tokens_per_second", avg("output_token_throughput"), "output_token_throughput")
    _put(run, "tokens_per_second_per_user",
         avg("output_token_throughput_per_user") or avg("output_token_throughput_per_request"),
         "output_token_throughput_per_user")
    for short, metric in AIPERF_TIMES.items():
        for stat, key in AIPERF_STATS.items():
            run.fields[f"{short}_{stat}_ms"] = _time_ms(run, metrics.get(metric), key, metric)
    run.fields["measured_at"] = _timestamp(run, doc.get("start_time"), None, "start_time")
    if run.fields.get("duration_s") is None:
        run.fields["duration_s"] = _span_seconds(doc.get("start_time"), doc.get("end_time"))
    _totals_from_means(run)
    _per_user_from_tpot(run)
    run.fields["extra"] = _extra({"tool": tool, "input_config": config or None,
                                  "was_cancelled": doc.get("was_cancelled"),
                                  "error_summary": doc.get("error_summary") or None})
    return run


def _load_setting(config: dict, key: str, phase_key: str | None = None):
    """concurrency / request rate from whichever input_config layout the version wrote."""
    phases = config.get("phases") if isinstance(config.get("phases"), list) else []
    profiling = next((p for p in phases if isinstance(p, dict) and p.get("name") == "profiling"),
                     phases[0] if phases else {})
    found = _first_of(config, ("loadgen", key), ("perf_analyzer", "stimulus", key), (key,))
    return found if found is not None else (profiling or {}).get(phase_key or key)


def _time_ms(run: RawRun, entry, stat: str, metric: str) -> float | None:
    if not isinstance(entry, dict) or entry.get(stat) is None:
        return None
    scale = TIME_UNITS_MS.get(str(entry.get("unit", "ms")).strip().lower())
    if scale is None:
        run.problems.append(f"{metric}: unit {entry.get('unit')!r} is not a time unit")
        return None
    value = _number(run, entry[stat], f"{metric}.{stat}")
    return None if value is None else value * scale


# --- CSV ------------------------------------------------------------------------------------------

def read_csv(name: str, content: bytes) -> ReadFile:
    text = complete_text(content, name, MeasurementFileError)
    header = csv_header(text, name, MeasurementFileError)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    try:
        named, used = marts_names({column.strip(): None for column in header}, "measurements_csv", name)
    except ValueError as exc:
        raise MeasurementFileError(str(exc)) from None
    if missing := [c for c in CSV_REQUIRED if c not in named]:
        raise MeasurementFileError(f"{name}: missing column(s) {', '.join(missing)} (the CSV's columns: "
                                   f"{CSV_COLUMNS_DOC})")
    runs = []
    for run_no, cells in enumerate(reader, start=1):
        if None in cells:  # DictReader's key for cells beyond the header
            raise MeasurementFileError(f"{name}: line {reader.line_num} has more cells than the header "
                                       "has columns")
        row, _ = marts_names({k.strip(): (v.strip() if isinstance(v, str) else v) for k, v in cells.items()},
                             "measurements_csv", name)
        run = RawRun(run_no, {}, row)
        for column in CSV_COLUMNS:
            value = row.get(column) or None
            if column == "measured_at":
                run.fields[column] = _timestamp(run, value, None, column)
            elif column == "request_rate":
                run.fields[column] = _request_rate(run, value)
            else:
                _put(run, CSV_FIELDS.get(column, column), value, column)
        _means_per_request(run)
        _per_user_from_tpot(run)
        run.fields["extra"] = _extra({k: v for k, v in row.items() if k not in CSV_COLUMNS and v})
        runs.append(run)
    if not runs:
        raise NoRuns(f"{name}: a header and no run")
    return ReadFile("csv", runs, old_name_notes(used * len(runs), "measurements_csv", name, "runs"))


# --- shared -----------------------------------------------------------------------------------

def _text(name: str, content: bytes) -> str:
    return text_of(content, name, MeasurementFileError)


def _first_json(name: str, text: str):
    return _json_documents(name, text)[0]


def _json_documents(name: str, text: str) -> list:
    """One JSON document, or one per line (vllm --append-result); a cut-short file is refused."""
    try:
        return [load_json(text, name, MeasurementFileError)]
    except json.JSONDecodeError as whole:
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) > 1:
            try:
                return [load_json(line, name, MeasurementFileError) for line in lines]
            except json.JSONDecodeError:
                pass
        ends = text.rstrip()
        cut = " (the file ends before its JSON does: cut short?)" if not ends.endswith(("}", "]")) else ""
        raise MeasurementFileError(f"{name}: {json_error(whole)}{cut}") from None


def _put(run: RawRun, target: str, value, source: str) -> None:
    if target in TEXTS:
        run.fields[target] = None if value is None or str(value).strip() == "" else str(value).strip()
    elif target in INTEGERS:
        number = _number(run, value, source)
        if number is not None and (math.isnan(number) or math.isinf(number) or number != int(number)):
            run.problems.append(f"{source}: not a whole number (got {value!r})")
            number = None
        elif number is not None and int(number) not in INT64:
            run.problems.append(f"{source}: out of range (got {_shown(value)}; at most 64-bit integers)")
            number = None
        run.fields[target] = None if number is None else int(number)
    else:
        run.fields[target] = _number(run, value, source)


def _number(run: RawRun, value, source: str) -> float | None:
    if value is None or (isinstance(value, str) and value.strip() == ""):
        return None
    if isinstance(value, bool):
        run.problems.append(f"{source}: not a number (got {value!r})")
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        run.problems.append(f"{source}: not a number (got {_shown(value)})")
        return None


def _shown(value) -> str:
    text = str(value)
    return repr(value) if len(text) <= 24 else f"{text[:20]}... ({len(text)} characters)"


def _plain_number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _plain_int(value) -> int | None:
    number = _plain_number(value)
    return int(number) if number is not None and math.isfinite(number) and number == int(number) \
        and int(number) in INT64 else None


def _timestamp(run: RawRun, value, pattern: str | None, source: str) -> datetime | None:
    if value is None or str(value).strip() == "":
        return None
    text = str(value).strip()
    try:
        parsed = datetime.strptime(text, pattern) if pattern else datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        run.problems.append(f"{source}: not a date and time (got {value!r})")
        return None
    return parsed.replace(tzinfo=None) if parsed.tzinfo is None else parsed.astimezone().replace(tzinfo=None)


def _span_seconds(start, end) -> float | None:
    try:
        return (datetime.fromisoformat(str(end)) - datetime.fromisoformat(str(start))).total_seconds() or None
    except (TypeError, ValueError):
        return None


def _first_of(document: dict, *paths: tuple):
    for path in paths:
        node = document
        for step in path:
            if isinstance(step, int):
                node = node[step] if isinstance(node, list) and len(node) > step else None
            else:
                node = node.get(step) if isinstance(node, dict) else None
            if node is None:
                break
        if node is not None:
            return node
    return None


def _means_per_request(run: RawRun) -> None:
    completed = run.fields.get("completed")
    for total, mean in (("input_tokens", "mean_input_tokens"), ("output_tokens", "mean_output_tokens")):
        if run.fields.get(mean) is None and run.fields.get(total) is not None and completed:
            run.fields[mean] = run.fields[total] / completed


def _totals_from_means(run: RawRun) -> None:
    f = run.fields
    for total, mean in (("input_tokens", "mean_input_tokens"), ("output_tokens", "mean_output_tokens")):
        if f.get(total) is None and f.get(mean) is not None and f.get("completed"):
            f[total] = round(f[mean] * f["completed"])
    if f.get("total_tokens_per_second") is None and f.get("duration_s") and None not in (
            f.get("input_tokens"), f.get("output_tokens")):
        f["total_tokens_per_second"] = (f["input_tokens"] + f["output_tokens"]) / f["duration_s"]


def _per_user_from_tpot(run: RawRun) -> None:
    tpot = run.fields.get("tpot_mean_ms")
    if run.fields.get("tokens_per_second_per_user") is None and tpot:
        run.fields["tokens_per_second_per_user"] = 1000 / tpot


def _extra(fields: dict) -> str | None:
    kept = {k: _json_safe(v) for k, v in fields.items() if v is not None}
    return json.dumps(kept, ensure_ascii=False, default=str) if kept else None


def _json_safe(value):
    """NaN and infinity as text: the stored JSON stays JSON (Python's json writes bare NaN)."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value
