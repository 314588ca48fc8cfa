"""Pure parsers of the endpoint harness's run files (schemas/endpoints.py says which and where):
bytes -> one flat record with the columns of `run_summaries` that LoadGen's summary fills (times in
ns, rates per second) plus the harness's own (samples issued, duration, output tokens...). No I/O.

Every figure the record has no column for is kept in `unparsed_lines` as `path: value` (JSON) or
verbatim (text); histograms are summarized in one line each (their buckets are not kept).
"""
from __future__ import annotations

import json
import math
import re

from schemas.endpoints import (BLOCKS, EARLY_STOPPING_KEYS, EARLY_STOPPING_PREFIX, ENDPOINT_CLIENT,
                               ENDPOINT_COLUMNS, ENDPOINT_HARNESS, LOAD_PATTERN_SCENARIO, PERCENTILE_KEYS)
from schemas.loadgen import SUMMARY_COLUMNS
from warehouse.trees.parsing import UnparsableFile, decode_json_object, json_type
from warehouse.inputs import SIGNED_OR_UNSIGNED_64, InputRefused, JsonOutOfBounds, bounded_decoder, check_depth

STATISTICS = {"min": "min", "max": "max", "avg": "mean"}  # the harness's key -> LoadGen's column word


def empty_record() -> dict:
    return dict.fromkeys(SUMMARY_COLUMNS) | dict.fromkeys(ENDPOINT_COLUMNS)


def _rate_columns(record: dict, scenario: str, samples: float | None, tokens: float | None) -> None:
    """The rates go where LoadGen prints them for the scenario: Offline 'Samples/Tokens per second',
    Server 'Completed samples/tokens per second'."""
    prefix = "" if scenario == "Offline" else "completed_"
    record[f"{prefix}samples_per_second"] = samples
    record[f"{prefix}tokens_per_second"] = tokens


class _Reader:
    """Takes fields out of a decoded JSON object by dotted path, collecting every reason a field is
    missing or of the wrong type; what is never taken is listed as unparsed lines afterwards."""

    def __init__(self, data: dict):
        self.data, self.taken, self.reasons = data, set(), []

    def get(self, where: str | tuple[str, ...], kind: str, required: bool = False):
        """The field at a dotted path, or at a tuple of keys (a percentile's key, "99.9", has a dot)."""
        parts = tuple(where.split(".")) if isinstance(where, str) else where
        path = ".".join(parts)
        value = self.data
        for part in parts:
            if not isinstance(value, dict) or part not in value:
                if required:
                    self.reasons.append(f"no '{path}'")
                return None
            value = value[part]
        self.taken.add(path)
        if value is None:
            if required:
                self.reasons.append(f"'{path}' is null")
            return None
        return self._typed(path, value, kind)

    def _typed(self, path: str, value, kind: str):
        number = isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
        if kind == "text" and isinstance(value, str):
            return value
        if kind == "bool" and isinstance(value, bool):
            return value
        if kind == "float" and number:
            return float(value)
        if kind in ("int", "ns") and number and (kind == "ns" or float(value).is_integer()):
            return round(value)  # ns: the harness averages to fractions of a nanosecond
        shown = repr(value)
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        self.reasons.append(f"'{path}': {shown} is not {'a whole number' if kind == 'int' else 'a ' + kind}")
        return None

    def unparsed(self) -> list[str]:
        """Every field never taken, as `path: JSON`; a histogram summarized as its number of buckets,
        and one that is not an object holding a list of counts is a reason (the file is not what
        the harness writes)."""
        lines = []
        for path, value in _leaves(self.data):
            if path in self.taken:
                continue
            if path.rsplit(".", 1)[-1] == "histogram":
                counts = value.get("counts") if isinstance(value, dict) else None
                if not isinstance(counts, list):
                    found = (f"'counts' {json_type(counts)}" if isinstance(value, dict) and "counts" in value
                             else "an object without 'counts'" if isinstance(value, dict) else json_type(value))
                    self.reasons.append(f"'{path}': expected an object with a list of 'counts', found {found}")
                    continue
                lines.append(f"{path}: {len(counts)} buckets (not kept)")
            else:
                lines.append(f"{path}: {json.dumps(value, ensure_ascii=False)}")
        return lines


def _leaves(data: dict, prefix: str = ""):
    for key, value in data.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value and key != "histogram":
            yield from _leaves(value, f"{path}.")
        else:
            yield path, value


def _statistics(reader: _Reader, record: dict) -> None:
    """ttft / tpot / latency blocks: min, max, mean, percentiles and early-stopping estimates, in ns.
    An empty block (TTFT and TPOT of an Offline run) leaves its columns null."""
    for block, prefix in BLOCKS.items():
        for key, word in STATISTICS.items():
            record[f"{prefix}_{word}_ns"] = reader.get(f"{block}.{key}", "ns")
        for key, p in PERCENTILE_KEYS.items():
            record[f"{prefix}_{p}_ns"] = reader.get((block, "percentiles", key), "ns")
        for key, p in EARLY_STOPPING_KEYS.items():
            record[f"{EARLY_STOPPING_PREFIX[block]}early_stopping_{p}_ns"] = reader.get(
                (block, "early_stopping_percentiles", key), "ns")
        reader.get(f"{block}.median", "float")  # the 50.0 percentile again


def _scenario_of(pattern: str | None, reasons: list[str]) -> str | None:
    if pattern is not None and pattern not in LOAD_PATTERN_SCENARIO:
        reasons.append(f"load pattern {pattern!r} is of no known scenario "
                       f"(known: {', '.join(LOAD_PATTERN_SCENARIO)})")
    return LOAD_PATTERN_SCENARIO.get(pattern)


# ---------------------------------------------------------------------------------------------
# result_summary.json


def parse_result_summary(content: bytes, label: str) -> dict:
    """performance/result_summary.json -> the run-summary record; UnparsableFile with every reason."""
    reader = _Reader(decode_json_object(content, label))
    record = empty_record()
    record |= {
        "harness": ENDPOINT_HARNESS,
        "harness_version": reader.get("version", "text", required=True),
        "samples_issued": reader.get("n_samples_issued", "int", required=True),
        "samples_completed": reader.get("n_samples_completed", "int", required=True),
        "samples_failed": reader.get("n_samples_failed", "int", required=True),
        "duration_ns": reader.get("duration_ns", "int", required=True),
        "run_complete": reader.get("complete", "bool"),
        "load_pattern": reader.get("run_config.load_pattern.type", "text", required=True),
        "target_qps": reader.get("run_config.load_pattern.target_qps", "float"),
        "output_tokens_total": reader.get("output_sequence_lengths.total", "int"),
        "output_tokens_mean": reader.get("output_sequence_lengths.avg", "float"),
    }
    qps, tps = reader.get("qps", "float", required=True), reader.get("tps", "float")
    _statistics(reader, record)
    record["loadgen_scenario"] = _scenario_of(record["load_pattern"], reader.reasons)
    record["unparsed_lines"] = reader.unparsed()
    if reader.reasons:
        raise UnparsableFile(label, reader.reasons)
    _rate_columns(record, record["loadgen_scenario"], qps, tps)
    return record


# ---------------------------------------------------------------------------------------------
# results.json (its head only)


def parse_client_results(head: bytes, label: str) -> dict:
    """The head of performance/run_1/results.json -> the run-summary record. The file is an object
    whose members come in the order config, results, accuracy_scores, responses; members are decoded
    one by one until `responses` (never decoded) or the end of the head."""
    data, reasons = _members_before(head, "responses", label)
    if "results" not in data:
        reasons.append(f"no 'results' object before 'responses' in the first {len(head)} bytes")
    if reasons:
        raise UnparsableFile(label, reasons)
    reader = _Reader(data)
    target_qps = reader.get("config.target_qps", "float")
    scenario = "Offline" if target_qps is None else "Server"
    record = empty_record()
    elapsed = reader.get("results.elapsed_time", "float", required=True)
    record |= {
        "harness": ENDPOINT_CLIENT, "loadgen_scenario": scenario, "target_qps": target_qps,
        "samples_issued": reader.get("results.total", "int", required=True),
        "samples_completed": reader.get("results.successful", "int", required=True),
        "samples_failed": reader.get("results.failed", "int", required=True),
        "duration_ns": None if elapsed is None else _whole_ns(elapsed * 1e9, "results.elapsed_time", reader.reasons),
    }
    qps = reader.get("results.qps", "float", required=True)
    record["unparsed_lines"] = reader.unparsed()
    if reader.reasons:
        raise UnparsableFile(label, reader.reasons)
    _rate_columns(record, scenario, qps, None)
    return record


def _whole_ns(value: float, what: str, reasons: list[str]) -> int | None:
    """A time in ns from seconds or ms: a whole number, or a reason when it is past any number."""
    if not math.isfinite(value):
        reasons.append(f"'{what}': beyond the range of a number once in ns")
        return None
    return round(value)


def _members_before(head: bytes, stop: str, label: str) -> tuple[dict, list[str]]:
    """The members of the top-level object before the member `stop`, decoded one at a time from a
    prefix of the file (json.JSONDecoder.raw_decode, no third-party streaming parser: the members
    before `stop` are a few hundred bytes). A member cut by the end of the head ends the scan."""
    text = head.decode("utf-8", errors="ignore")  # the head may end inside a multi-byte character
    decoder, members, at = bounded_decoder(finite=True, integers=SIGNED_OR_UNSIGNED_64), {}, _skip(text, 0)
    if text[at:at + 1] != "{":
        return {}, ["not a JSON object"]
    at = _skip(text, at + 1)
    while at < len(text) and text[at] != "}":
        try:
            key, at = decoder.raw_decode(text, at)
            if not isinstance(key, str):
                return members, [f"expected a member name at character {at}, found {json_type(key)}"]
            at = _skip(text, at)
            if text[at:at + 1] != ":":
                return members, [f"expected ':' after {key!r} at character {at}"]
            if key == stop:
                return members, []
            value, at = decoder.raw_decode(text, _skip(text, at + 1))
            check_depth(value, label)
        except json.JSONDecodeError:
            break  # cut by the end of the head
        except (JsonOutOfBounds, InputRefused, RecursionError) as exc:
            return members, [f"member {key!r}: {_refusal(exc, label)}"]
        if key in members and members[key] != value:
            return members, [f"the member {key!r} twice, with two values (a reader would keep one of the two silently)"]
        members[key] = value
        at = _skip(text, at)
        at = _skip(text, at + 1) if text[at:at + 1] == "," else at
    return members, []


def _refusal(exc: Exception, label: str) -> str:
    if isinstance(exc, RecursionError):
        return "JSON nested too deeply"
    return f"JSON holding {exc}" if isinstance(exc, JsonOutOfBounds) else str(exc).removeprefix(f"{label}: ")


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


# ---------------------------------------------------------------------------------------------
# report.txt (the fallback: the same figures as text, ms with two decimals)

REPORT_FIELDS = {
    "version": ("harness_version", "text"),
    "total samples issued": ("samples_issued", "int"),
    "total samples completed": ("samples_completed", "int"),
    "total samples failed": ("samples_failed", "int"),
}
REPORT_BLOCKS = {"ttft": "ttft", "tpot": "tpot", "latency": "latency", "output sequence lengths": "osl"}
REPORT_STATISTICS = {"min": "min", "max": "max", "avg.": "mean"}
NUMBER_WITH_UNIT = re.compile(r"^(-?\d+(?:\.\d+)?)\s*(ms|tokens|seconds)?$")
LOAD_PATTERN_LINE = re.compile(r"^load_pattern:\s*(.*)$")


def parse_report(content: bytes, label: str) -> dict:
    """report.txt -> the run-summary record (ms printed with two decimals become ns: 4413.22 ms ->
    4413220000 ns, exact to 10 µs). UnparsableFile with every reason."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnparsableFile(label, [f"not valid UTF-8 at byte {exc.start}"]) from exc
    record, reasons, unparsed, malformed = empty_record(), [], [], set()
    record["harness"] = ENDPOINT_HARNESS
    rates, block, section = {}, None, None
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("---") or _histogram_line(line):
            continue
        key, sep, value = (part.strip() for part in line.partition(":"))
        lowered = key.lower()
        indent = len(raw) - len(raw.lstrip())
        if indent == 0 and lowered in REPORT_BLOCKS and not value:
            block, section = REPORT_BLOCKS[lowered], None
            continue
        if indent == 0:
            block = None
        try:
            taken = _report_line(record, rates, block, section, lowered, value, line)
        except ValueError as exc:
            reasons.append(f"line {number} ({key}): {exc}")
            malformed.add(lowered)
            continue
        if taken is _SECTION:
            section = lowered
        elif not taken:
            unparsed.append(line)
    record["loadgen_scenario"] = _scenario_of(record["load_pattern"], reasons)
    missing = [name for name, have in (("Version", record["harness_version"]), ("QPS", rates.get("qps")),
                                       ("load_pattern", record["load_pattern"]))
               if have is None and name.lower() not in malformed]
    if missing:
        reasons.append("not an endpoint harness report: no " + ", ".join(missing) + " line")
    if reasons:
        raise UnparsableFile(label, reasons)
    _rate_columns(record, record["loadgen_scenario"], rates["qps"], rates.get("tps"))
    record["unparsed_lines"] = unparsed
    return record


_SECTION = object()


def _report_line(record: dict, rates: dict, block: str | None, section: str | None, key: str,
                 value: str, line: str):
    """Put one report line in the record: True when taken, _SECTION when it opens a list
    (Percentiles, Early-stopping ...), False when no column takes it. ValueError when a figure
    a column takes is not a number."""
    if block is None:
        if key in REPORT_FIELDS:
            column, kind = REPORT_FIELDS[key]
            _once(record, column, value if kind == "text" else _whole(value))
            return True
        if key in ("qps", "tps"):
            _once(rates, key, _number(value))
            return True
        if key == "duration":
            _once(record, "duration_ns", _scaled(value, 1e9))  # two decimals: to 10 ms
            return True
        if LOAD_PATTERN_LINE.match(line):
            pattern = dict(p.strip().partition("=")[::2] for p in value.split(","))
            record["load_pattern"] = pattern.get("type")
            qps = pattern.get("target_qps")
            record["target_qps"] = None if qps in (None, "None") else _number(qps)
            return True
        return False
    if key == "percentiles" or key.startswith("early-stopping percentile"):
        return _SECTION
    if block == "osl":
        if key == "avg.":
            record["output_tokens_mean"] = _number(value)
            return True
        return False
    if section is None and key in REPORT_STATISTICS:
        record[f"{block}_{REPORT_STATISTICS[key]}_ns"] = _ns(value)
        return True
    if section == "percentiles" and key in PERCENTILE_KEYS:
        record[f"{block}_{PERCENTILE_KEYS[key]}_ns"] = _ns(value)
        return True
    if section and section.startswith("early-stopping") and key in EARLY_STOPPING_KEYS:
        prefix = EARLY_STOPPING_PREFIX[block]
        record[f"{prefix}early_stopping_{EARLY_STOPPING_KEYS[key]}_ns"] = None if value == "N/A" else _ns(value)
        return True
    return False


def _histogram_line(line: str) -> bool:
    return line.startswith("[") or line.lower() == "histogram:"


def _once(record: dict, column: str, value) -> None:
    """A field the report gives again must give the same value (a reader would keep one silently)."""
    if record.get(column) is not None and record[column] != value:
        raise ValueError(f"given twice, with two values ({record[column]!r}, then {value!r})")
    record[column] = value


def _number(value: str) -> float:
    match = NUMBER_WITH_UNIT.match(value)
    if not match:
        raise ValueError(f"{_shown(value)} is not a number")
    number = float(match.group(1))
    if not math.isfinite(number):
        raise ValueError(f"{_shown(value)} is beyond the range of a 64-bit float")
    return number


def _shown(value: str) -> str:
    return repr(value) if len(value) <= 40 else f"{value[:20]!r}... ({len(value)} characters)"


def _scaled(value: str, factor: float) -> int:
    """A figure in seconds or ms, as a whole number of ns; ValueError when that is past any number."""
    scaled = _number(value) * factor
    if not math.isfinite(scaled):
        raise ValueError(f"{_shown(value)} is beyond the range of a number once in ns")
    return round(scaled)


def _whole(value: str) -> int:
    if not re.fullmatch(r"\d+", value):
        raise ValueError(f"{_shown(value)} is not a whole number")
    if len(value) > 19:
        raise ValueError(f"a whole number of {len(value)} digits, beyond the bound of 64-bit integers")
    return int(value)


def _ns(value: str) -> int:
    return _scaled(value, 1e6)
