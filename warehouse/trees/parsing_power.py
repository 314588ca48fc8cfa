"""Pure parsers of a power run's two files (bytes -> one flat record; no I/O), read as MLCommons'
submission checker reads them (tools/submission/submission_checker/checks/power_check.py
`get_power_metric_check`; `get_power_metric` of the v2.x-era tools/submission/submission_checker.py).

mlperf_log_detail.txt  LoadGen's detail log, one `:::MLLOG {json}` record a line, read as the checker's
    log reader reads it (tools/submission/log_parser.py `MLPerfLog`, strict): the first line is a
    record, every record is whole JSON (a log cut short mid-line is refused), and a key logged twice
    is read at its first record. Only the keys the power figure needs are kept (DETAIL_KEYS).
spl.txt  the power analyzer's sample log (PTDaemon): `Time,<MM-DD-YYYY hh:mm:ss.fff>,Watts,<W>,...`
    about once a second. Lines not starting with "Time" are skipped, as the checker skips them. Its
    record is what the figure needs of it for one window (power_begin, power_end of the detail log):
    the positive Watts samples strictly inside the window (their count and sum, in file order), the
    non-positive ones there (the checker skips them), and the log's first and last sample times.
    A sample line that is not one (too few fields, a time or a Watts that does not read) or a time
    earlier than the line before refuses the file, naming the line.
performance/power/client.json, server.json  read only for a round whose LoadGen and analyzer logged
    local times (v1.0: the checker's has_power_utc_timestamps() is false): the power-dev client's and
    server's session files, a JSON object whose "timezone" is the machine's offset in seconds west of
    UTC (Python's time.timezone). Its record is {"timezone": seconds}; anything else (not JSON, not an
    object, no "timezone", not a whole number of seconds, beyond any zone on Earth) refuses the file.
"""
from __future__ import annotations

import json
import math
import re
from datetime import datetime, timedelta
from functools import lru_cache

from warehouse.trees.parsing import UnparsableFile

SPL_FILE = "spl.txt"
DETAIL_FILE = "mlperf_log_detail.txt"
POWER_FILES = (DETAIL_FILE, SPL_FILE)
POWER_FOLDER = "performance/power"              # beside performance/run_1: the power-dev session's files
TIMEZONE_FILES = ("client.json", "server.json")  # the SUT's clock (LoadGen's window) and the analyzer host's
MAX_TIMEZONE_S = 14 * 3600                      # UTC offsets on Earth run from -12 h to +14 h
MARKER = ":::MLLOG"
TIME_FORMAT = "%m-%d-%Y %H:%M:%S.%f"   # the checker's datetime_format, of both files
TIME_WORDS = "MM-DD-YYYY hh:mm:ss.fff"
# The detail log's keys the power figure reads -> the JSON type each must have.
DETAIL_KEYS: dict[str, tuple[type, ...]] = {
    "power_begin": (str,), "power_end": (str,), "effective_scenario": (str,), "loadgen_version": (str,),
    "result_query_count": (int,), "generated_query_count": (int,), "generated_samples_per_query": (int,),
    "result_qps_with_loadgen_overhead": (int, float),
}
_CANONICAL_TIME = re.compile(r"(\d\d)-(\d\d)-(\d{4}) (\d\d):(\d\d):(\d\d)\.(\d{1,6})")
_EPOCH = datetime(1970, 1, 1)
MICROSECONDS = 1_000_000


def is_power_file(path: str) -> bool:
    """A run's spl.txt or detail log, or a timezone file of its power folder (a system description
    may be named client.json: only the power folder's are timezone files)."""
    folder, _, name = path.rpartition("/")
    return name in POWER_FILES or (name in TIMEZONE_FILES and folder.endswith(f"/{POWER_FOLDER}"))


def timezone_paths(run_path: str) -> tuple[str, str]:
    """client.json's and server.json's paths for the run folder <scenario>/performance/run_1."""
    scenario = run_path.rsplit("/", 2)[0]
    return tuple(f"{scenario}/{POWER_FOLDER}/{name}" for name in TIMEZONE_FILES)


# ---------------------------------------------------------------------------------------------
# times


def timestamp_us(text: str) -> int:
    """The checker's time (datetime.strptime(text, "%m-%d-%Y %H:%M:%S.%f"), no timezone) as
    microseconds since 1970-01-01; ValueError when strptime would refuse it. The usual spelling is
    read without strptime (a log holds thousands), anything else through it."""
    match = _CANONICAL_TIME.fullmatch(text)
    if match is None:
        return _microseconds(datetime.strptime(text, TIME_FORMAT))
    month, day, year, hour, minute, second, fraction = match.groups()
    hour, minute, second = int(hour), int(minute), int(second)
    if hour > 23 or minute > 59 or second > 59:
        raise ValueError(f"{text!r}: no such time of day")
    seconds = ((_days(year, month, day) * 24 + hour) * 60 + minute) * 60 + second
    return seconds * MICROSECONDS + int(fraction) * 10 ** (6 - len(fraction))


@lru_cache(maxsize=256)
def _days(year: str, month: str, day: str) -> int:
    """Days from 1970-01-01 to the date; ValueError for a date the calendar has not (02-30)."""
    return (datetime(int(year), int(month), int(day)) - _EPOCH).days


def _microseconds(at: datetime) -> int:
    delta = at - _EPOCH
    return (delta.days * 86_400 + delta.seconds) * MICROSECONDS + delta.microseconds


def timestamp_datetime(microseconds: int) -> datetime:
    """Microseconds since 1970 as the time they are (no timezone: as logged)."""
    return _EPOCH + timedelta(microseconds=microseconds)


def shown_time(microseconds: int) -> str:
    """Microseconds since 1970 as the logs write a time (to the millisecond)."""
    at = timestamp_datetime(microseconds)
    return at.strftime("%m-%d-%Y %H:%M:%S.") + f"{at.microsecond // 1000:03d}"


# ---------------------------------------------------------------------------------------------
# mlperf_log_detail.txt


def parse_detail(content: bytes, label: str) -> dict:
    """The detail log's DETAIL_KEYS (None where not logged), and power_begin_us / power_end_us (the
    window in microseconds since 1970, as the checker reads the times). UnparsableFile with the reason
    when it is not a whole LoadGen detail log, or logs no power window (a run the analyzer did not
    measure) or one that does not read."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnparsableFile(label, [f"not valid UTF-8 at byte {exc.start}"]) from exc
    found: dict = {}
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")   # as Python's text files read lines
    for number, line in enumerate(lines, start=1):
        line = line.rstrip()
        if not line.startswith(MARKER):
            if number == 1:
                raise UnparsableFile(label, [f"not a LoadGen detail log: line 1 is not a {MARKER} record"])
            continue
        record = _record(line, number, len(lines), label)
        key = record.get("key")
        if key in DETAIL_KEYS and key not in found:
            found[key] = record.get("value")
    detail = {key: _typed(found.get(key), key, label) for key in DETAIL_KEYS}
    detail["power_begin_us"], detail["power_end_us"] = _window(detail, label)
    return detail


def _record(line: str, number: int, lines: int, label: str) -> dict:
    try:
        record = json.loads(line[len(MARKER):])
    except (ValueError, RecursionError):
        cut = " (the log is cut short)" if number >= lines - 1 else ""
        raise UnparsableFile(label, [f"line {number} is not a whole {MARKER} JSON record{cut}"]) from None
    if not isinstance(record, dict) or "key" not in record:
        raise UnparsableFile(label, [f"line {number}: a {MARKER} record without a key"])
    return record


def _typed(value, key: str, label: str):
    if value is None or (isinstance(value, DETAIL_KEYS[key]) and not isinstance(value, bool)):
        if isinstance(value, float) and not math.isfinite(value):
            raise UnparsableFile(label, [f"{key} is {value}, not a finite number"])
        return value
    raise UnparsableFile(label, [f"{key} is {json.dumps(value)[:60]}, not {DETAIL_KEYS[key][0].__name__}"])


def _window(detail: dict, label: str) -> tuple[int, int]:
    missing = [key for key in ("power_begin", "power_end") if detail[key] is None]
    if missing:
        raise UnparsableFile(label, [f"no {' or '.join(missing)} record: LoadGen logged no power window "
                                     "(a run the power analyzer did not measure)"])
    window = []
    for key in ("power_begin", "power_end"):
        try:
            window.append(timestamp_us(detail[key]))
        except ValueError:
            raise UnparsableFile(label, [f"{key} {detail[key][:40]!r} is not a time ({TIME_WORDS})"]) from None
    if window[1] <= window[0]:
        raise UnparsableFile(label, [f"power_end {detail['power_end']} is not after power_begin {detail['power_begin']}"])
    return window[0], window[1]


# ---------------------------------------------------------------------------------------------
# spl.txt


def spl_window(content: bytes, begin_us: int, end_us: int, label: str) -> dict:
    """What the power figure needs of the sample log for the window (begin_us, end_us): samples (the
    positive Watts strictly inside it) and watts_sum (their sum, added in file order as the checker's
    sum() adds them); skipped (the non-positive ones there) and the first of them; lines (sample
    lines) and first_us / last_us (the log's first and last sample times). UnparsableFile naming the
    first line that is not a sample, or whose time goes back."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnparsableFile(label, [f"not valid UTF-8 at byte {exc.start}"]) from exc
    samples = skipped = lines = 0
    watts_sum = 0.0
    first_us = previous_us = None
    first_skipped = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.startswith("Time"):
            continue
        fields = line.split(",", 4)
        if len(fields) < 4 or fields[2] != "Watts":
            raise UnparsableFile(label, [f"line {number} is not a sample (Time,<time>,Watts,<W>,...): {_shown(line)}"])
        at = _sample_time(fields[1], number, label)
        if previous_us is not None and at < previous_us:
            raise UnparsableFile(label, [f"line {number}: time {fields[1]} is before the line above's: the samples "
                                         "are out of order"])
        watts = _watts(fields[3], number, label)
        if first_us is None:
            first_us = at
        previous_us, lines = at, lines + 1
        if begin_us < at < end_us:
            if watts > 0:
                samples += 1
                watts_sum += watts
            else:
                skipped += 1
                first_skipped = first_skipped or f"line {number}: {fields[3]} W"
    if not lines:
        raise UnparsableFile(label, ["no sample line (Time,<time>,Watts,<W>,...)"])
    return {"samples": samples, "watts_sum": watts_sum, "skipped": skipped, "first_skipped": first_skipped,
            "lines": lines, "first_us": first_us, "last_us": previous_us}


def _sample_time(text: str, number: int, label: str) -> int:
    try:
        return timestamp_us(text)
    except ValueError:
        raise UnparsableFile(label, [f"line {number}: time {_shown(text)} is not {TIME_WORDS}"]) from None


def _watts(text: str, number: int, label: str) -> float:
    try:
        watts = float(text)
    except ValueError:
        raise UnparsableFile(label, [f"line {number}: Watts {_shown(text)} is not a number"]) from None
    if not math.isfinite(watts):
        raise UnparsableFile(label, [f"line {number}: Watts {_shown(text)} is not a finite number"])
    return watts


def _shown(text: str) -> str:
    return repr(text) if len(text) <= 60 else f"{text[:40]!r}... ({len(text)} characters)"


# ---------------------------------------------------------------------------------------------
# performance/power/client.json and server.json


def parse_timezone(content: bytes, label: str) -> dict:
    """{"timezone": seconds} of a power-dev session file, read as the checker reads it
    (datetime.timedelta(seconds=json.load(f)["timezone"])); UnparsableFile saying why it is not one."""
    try:
        record = json.loads(content.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise UnparsableFile(label, [f"not valid UTF-8 at byte {exc.start}"]) from exc
    except (ValueError, RecursionError):
        raise UnparsableFile(label, ["not JSON"]) from None
    if not isinstance(record, dict) or "timezone" not in record:
        raise UnparsableFile(label, ['not a JSON object with a "timezone"'])
    offset = record["timezone"]
    if not isinstance(offset, int) or isinstance(offset, bool):
        raise UnparsableFile(label, [f'"timezone" is {json.dumps(offset)[:40]}, not a whole number of seconds'])
    if abs(offset) > MAX_TIMEZONE_S:
        raise UnparsableFile(label, [f'"timezone" is {offset} s, beyond any zone on Earth (at most '
                                     f"{MAX_TIMEZONE_S // 3600} h from UTC)"])
    return {"timezone": offset}
