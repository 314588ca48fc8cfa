"""Every MLPERF_* environment variable the tool reads, in one place: how its text is read, its default
and meaning.

Read at call time (`current()`), never cached at import, so a variable set before a command (or by a
test) applies to it. A value that does not parse is one line naming the variable, not a traceback.
`settings_rows()` lists them for `mlperf-wh config`."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Callable

from warehouse.errors import UsageError

ENV_PREFIX = "MLPERF_"
MIB = 1024 * 1024
# Durations are finite and at most a day: a timer of inf or 1e308 s is no limit (the thread that
# enforces it dies), and a sleep of that length overflows.
DAY = 86_400.0
SIZE_UNITS = {"b": 1, "kb": 1000, "mb": 1000 ** 2, "gb": 1000 ** 3, "tb": 1000 ** 4,
              "kib": 1024, "mib": 1024 ** 2, "gib": 1024 ** 3, "tib": 1024 ** 4}
LARGEST_MEMORY = 1024 ** 5
_MEMORY_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(%|[kmgt]i?b|b)", re.IGNORECASE)


class SettingsError(UsageError):
    """An MLPERF_* variable holds a value of the wrong type or range."""


@dataclass(frozen=True)
class Field:
    default: object
    parse: Callable[[str], object]  # the variable's text -> the value; ValueError(why) when it cannot be one
    description: str
    secret: bool = False            # its value may hold credentials: shown as its URLs' schemes alone


def text(value: str) -> str:
    return value


def optional_path(value: str) -> Path:
    return Path(value)


def existing_directory(value: str) -> Path:
    if not Path(value).is_dir():
        raise ValueError("no such directory (it holds your copy of the reference tables)")
    return Path(value)


def well_formed_url(value: str) -> str:
    if (problem := url_problem(value)) is not None:
        raise ValueError(problem)
    return value


def yes_unless_zero(value: str) -> bool:
    """Any value but 0 (false, no, off) means yes."""
    return value.strip().lower() not in ("", "0", "false", "no", "off")


def host_list(value: str) -> tuple[str, ...]:
    return tuple(h.strip().lower() for h in value.split(",") if h.strip())


def number(gt: float | None = None, ge: float | None = None, le: float | None = None,
           kind: type = float) -> Callable[[str], float | int]:
    """A parser of finite numbers of `kind` within the bounds; its messages are pydantic's."""
    what = ("a valid integer, unable to parse string as an integer" if kind is int
            else "a valid number, unable to parse string as a number")

    def parse(value: str):
        try:
            parsed = kind(value.strip())
        except ValueError:
            raise ValueError(f"Input should be {what}") from None
        if parsed != parsed or parsed in (float("inf"), float("-inf")):
            raise ValueError("Input should be a finite number")
        for bound, holds, words in ((gt, lambda b: parsed > b, "greater than"),
                                    (ge, lambda b: parsed >= b, "greater than or equal to"),
                                    (le, lambda b: parsed <= b, "less than or equal to")):
            if bound is not None and not holds(bound):
                raise ValueError(f"Input should be {words} {bound}")
        return parsed
    return parse


def matching(pattern: str) -> Callable[[str], str]:
    def parse(value: str) -> str:
        if re.search(pattern, value) is None:
            raise ValueError(f"String should match pattern '{pattern}'")
        return value
    return parse


def notify_targets(value: str) -> tuple[str, ...]:
    """Apprise URLs separated by spaces (or a comma before the next URL: a mailto's to=a,b stays one)."""
    targets = tuple(t for t in re.split(r"[\s,]+(?=[A-Za-z][A-Za-z0-9+.-]*://)|\s+", value.strip()) if t)
    if bad := [i for i, t in enumerate(targets, 1) if "://" not in t]:
        # Never echoed: a word that is no URL is often a bare token (xoxb-..., a webhook's secret).
        raise ValueError(f"value {bad[0]} of {len(targets)} is not a notification URL (SCHEME://...); "
                         "it is not shown, as it may be a token: write it inside its service's URL")
    return targets


def memory_limit(value: str) -> str:
    memory_size(value)
    return value.strip()


# Every setting: MLPERF_<NAME> -> its default, how its text is read, what it means. Read without
# pydantic or pydantic-settings (0.1 s and 0.09 s of every command to import and build a model).
FIELDS: dict[str, Field] = {
    "source": Field("https://raw.githubusercontent.com/mlcommons", well_formed_url, (
        "where rounds are fetched from when --source is not given: an http(s):// base URL, a directory "
        "or a file:// URL laid out like the round repositories")),
    "warehouse_db": Field("warehouse/mlperf.duckdb", text, (
        "the warehouse file when --db is not given (relative to the current directory)")),
    "reference_dir": Field(None, existing_directory, (
        "a directory holding your edited copy of the reference tables (accelerators.csv, benchmarks.csv, "
        "rack_capacity.csv); unset: the tables shipped in the package")),
    "debug": Field(False, yes_unless_zero,
                   "print the traceback of a failure (as -v does); any value but 0 means yes"),
    "fetch_connect_timeout": Field(10.0, number(gt=0, le=DAY), "seconds to connect to the source, per request"),
    "fetch_read_timeout": Field(60.0, number(gt=0, le=DAY),
                                "seconds without a byte from the source before a read fails"),
    "fetch_max_bytes": Field(64 * MIB, number(gt=0, le=16 * 1024 * MIB, kind=int), "largest file a fetch accepts, in bytes"),
    "power_file_max_bytes": Field(32 * MIB, number(gt=0, le=16 * 1024 * MIB, kind=int), (
        "largest power file (a run's spl.txt or mlperf_log_detail.txt) the tree reader reads, in bytes; a "
        "larger one is not read and its run's power figure is quarantined (a real spl.txt is at most a few MB)")),
    "power_skipped_share": Field(0.01, number(ge=0, le=1), (
        "the largest share of a run's power samples inside its window that may be non-positive: MLCommons' "
        "checker skips them (the analyzer's marker for a missing reading); past this share the power figure "
        "is quarantined")),
    "power_window_grace": Field(2.0, number(ge=0, le=DAY), (
        "seconds the analyzer's log may start after power_begin or end before power_end (about two samples); "
        "past that the log does not cover the run and the power figure is quarantined")),
    "fetch_retries": Field(3, number(ge=0, le=100, kind=int), "retries of a failed fetch (timeouts, 5xx, cut bodies)"),
    "fetch_backoff": Field(1.0, number(ge=0, le=3600), "seconds before the first retry; doubled for each next one"),
    "fetch_deadline": Field(600.0, number(gt=0, le=DAY), (
        "seconds one attempt at one file may take, redirects included (stops a slow-drip server)")),
    "redirect_hosts": Field((), host_list, (
        "comma-separated hosts a redirect may lead to, besides the source's own host")),
    "shrink_limit": Field(0.10, number(ge=0, le=1), (
        "the `shrink` guard: the largest share of a source's loaded rows a reload may drop")),
    "withdrawal_limit": Field(0.02, number(ge=0, le=0.5), (
        "a whole reload short of its round's recorded records (`short-of-round`) loads as MLCommons "
        "withdrawing results when it lacks at most this share of them (at least one record)")),
    "writer_wait": Field(60.0, number(ge=0, le=DAY), (
        "seconds a run waits for another run's writer lock on the warehouse before failing")),
    "prefect_temporary_server": Field(False, yes_unless_zero, (
        "with no Prefect API configured (PREFECT_API_URL), run backfill, ingest, watch and trees as "
        "Prefect flow runs on Prefect's temporary server (seconds more per run; kept in Prefect's local "
        "database); unset: such runs are plain, recorded in `mlperf-wh loads`; any value but 0 means yes")),
    "prefect_startup_timeout": Field(120.0, number(gt=0, le=DAY), (
        "seconds Prefect's temporary API server may take to start (a first start migrates its database)")),
    "duckdb_threads": Field(None, number(ge=1, le=1024, kind=int), (
        "threads each DuckDB connection of a command may use (loads, views, `sql`, exports); unset: DuckDB's "
        "default, one per core; on a machine shared with other work, or running several commands at once, "
        "a smaller number leaves the other cores to them")),
    "sql_timeout": Field(60.0, number(gt=0, le=DAY), "seconds one `mlperf-wh sql` query may run before it is stopped"),
    "sql_memory_limit": Field("25%", memory_limit, (
        "memory one `mlperf-wh sql` query may use: a share of this machine's memory (25%) or a size (8GB, 512MiB)")),
    "watch_cron": Field("0 6 * * *", text, "cron schedule of the watch-rounds deployment (`serve`), UTC"),
    "dask_address": Field(None, text, (
        "a Dask scheduler (tcp://HOST:8786) the tree ingest runs its chunks on; unset: a thread pool here")),
    "git_token": Field(None, text, (
        "the token `trees --git` gives git for the URL's host (a private mirror); git reads it from its "
        "environment, never its arguments or .git/config (docs/operations-guide.md); unset: none, or "
        "the user:token@ of the --git URL"), secret=True),
    "git_username": Field(None, text, "the user name given to git with MLPERF_GIT_TOKEN; unset: git"),
    "git_connect_timeout": Field(30, number(ge=1, le=DAY, kind=int), (
        "seconds `trees --git` waits for a connection: an http(s):// server (or the proxy git uses for "
        "it) is tried for this long before git runs; over ssh, ssh's ConnectTimeout (the connection "
        "and the server's first words)")),
    "git_low_speed_limit": Field(1000, number(ge=1, le=1024 * MIB, kind=int), (
        "bytes per second below which a git transfer over http(s) counts as stalled")),
    "git_low_speed_time": Field(60, number(ge=1, le=DAY, kind=int), (
        "seconds a git transfer over http(s) may stay below MLPERF_GIT_LOW_SPEED_LIMIT (a server that "
        "takes the connection and never answers) before it fails; over ssh, how long a server that "
        "stopped answering ssh's keep-alives is kept")),
    "git_deadline": Field(1800.0, number(gt=0, le=DAY), (
        "seconds a run's git work may take, every round's clone or fetch together; then git's process "
        "group is killed and the run fails, before the writer lock is taken")),
    "export_dir": Field(None, optional_path, (
        "where a run that loaded something regenerates the BI export; unset: not regenerated")),
    "report_dir": Field(None, optional_path, (
        "where a run that loaded something regenerates the report; unset: not regenerated")),
    "published_storage": Field(None, matching(r"^v\d+\.\d+\.\d+$"), (
        "DuckDB storage version of the published read-only copy, e.g. v1.0.0 so DuckDB 1.x readers "
        "(Metabase's driver, older DBeaver) open it; unset: the writer's own (a plain file copy, fastest)")),
    "notify": Field((), notify_targets, (
        "where to send a message after each run that changed something, and after a failed run: Apprise "
        "URLs (json://host/path, slack://..., mailto://...), several separated by spaces; a target's "
        "credentials are never stored or printed; unset: no messages (docs/operations-guide.md)"), secret=True),
    "notify_block": Field(None, text, (
        "with a Prefect API configured: a Prefect notification block (TYPE/NAME, e.g. slack-webhook/ops) "
        "that gets the same messages")),
    "notify_retries": Field(2, number(ge=0, le=10, kind=int), (
        "retries of a notification a target did not accept; the run's outcome never depends on it")),
    "notify_backoff": Field(1.0, number(ge=0, le=60), "seconds before a notification's first retry; doubled for each next one"),
    "notify_target_budget": Field(10.0, number(gt=0, le=3600), (
        "seconds one target's delivery may take, its retries included (connect, send, read: a receiver "
        "that drips its answer is cut off); then it is recorded as timed out")),
    "notify_run_budget": Field(30.0, number(gt=0, le=3600), (
        "seconds a run waits for all of its notifications (the targets are sent to side by side); "
        "the run's outcome never waits longer")),
    "notify_link": Field(None, text, (
        "where a message's reader finds the report (e.g. the URL your MLPERF_REPORT_DIR is served at); "
        "unset: the report directory, or the command that lists the changes")),
}


class Settings:
    """The value of every setting in FIELDS, as attributes (`current().sql_timeout`); read-only."""
    __slots__ = tuple(FIELDS)

    def __init__(self, **values):
        for name, field in FIELDS.items():
            object.__setattr__(self, name, values.get(name, field.default))

    def __setattr__(self, name, value):
        raise AttributeError(f"settings are read-only: set {variable(name)} instead")


def memory_size(text: str) -> tuple[float, str]:
    """"25%" -> (25.0, "%"), "8GB" -> (8.0, "GB"); ValueError for anything else."""
    match = _MEMORY_SIZE.fullmatch(text.strip())
    if match is None or float(match.group(1)) <= 0 or (match.group(2) == "%" and float(match.group(1)) > 100):
        raise ValueError("a share of memory up to 100% (25%) or a size with its unit (8GB, 512MiB)")
    number, unit = float(match.group(1)), match.group(2)
    if unit != "%" and number * SIZE_UNITS[unit.lower()] > LARGEST_MEMORY:
        raise ValueError("a size up to 1 PiB")
    return number, unit


def url_problem(text: str) -> str | None:
    """Why an http(s):// URL cannot be used (a bracket left open, a port that is no number), or None."""
    if not text.lower().startswith(("http://", "https://")):
        return None
    from urllib.parse import urlsplit
    try:
        parts = urlsplit(text)
        parts.port  # noqa: B018 - parsing the port is what fails
    except ValueError as exc:
        return f"not a valid URL ({exc})"
    return None if parts.hostname else "not a valid URL (no host)"


def variable(field_name: str) -> str:
    return ENV_PREFIX + field_name.upper()


def set_variables() -> set[str]:
    """The MLPERF_* variables set (not empty) in the environment now."""
    return {name.upper() for name, value in os.environ.items() if name.upper().startswith(ENV_PREFIX) and value}


def default(field_name: str):
    return FIELDS[field_name].default


def current() -> Settings:
    """The settings as the environment has them now."""
    return _settings_of(frozenset((name, value) for name, value in os.environ.items()
                                  if name.upper().startswith(ENV_PREFIX)))


@lru_cache(maxsize=8)
def _settings_of(variables: frozenset[tuple[str, str]]) -> Settings:
    # Keyed by the MLPERF_* variables, the only input Settings reads: building one validates every
    # field again (1.5 ms; a cold backfill asked for them eight times).
    # Names in any case, an empty variable its default, an unknown MLPERF_* name ignored: as
    # pydantic-settings read them.
    given = {name[len(ENV_PREFIX):].lower(): value for name, value in sorted(variables) if value != ""}
    values, problems = {}, []
    for name, value in given.items():
        if name not in FIELDS:
            continue
        try:
            values[name] = FIELDS[name].parse(value)
        except ValueError as exc:
            shown = hidden(value) if FIELDS[name].secret else repr(value)
            problems.append(f"{variable(name)}={shown}: {exc}")
    if problems:
        raise SettingsError("; ".join(problems))
    return Settings(**values)


def settings_rows() -> list[dict[str, str | None]]:
    """One row per setting: variable, value, default, meaning, source ('env' or 'default')."""
    settings = current()
    rows = []
    for name, field in FIELDS.items():
        env_value = os.environ.get(variable(name), "")
        value = _text(getattr(settings, name))
        rows.append({"variable": variable(name), "value": hidden(value) if field.secret and value else value,
                     "default": _text(field.default), "meaning": field.description,
                     "source": "env" if env_value else "default"})
    return rows


_SHOWN_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,11}")


def hidden(value: str) -> str:
    """A secret setting as it may be shown: each URL's scheme (when it reads as one, not as a token
    written before ://), the rest hidden."""
    def shown(part: str) -> str:
        scheme = part.split("://", 1)[0]
        return f"{scheme if _SHOWN_SCHEME.fullmatch(scheme) else '(hidden)'}://(hidden)"
    return " ".join(shown(part) if "://" in part else "(hidden)" for part in re.split(r"[\s,]+", value.strip()) if part)


def _text(value) -> str | None:
    if isinstance(value, tuple):
        return ",".join(value)
    return None if value is None else str(value)


if __name__ == "__main__":  # `python -m warehouse.settings`, until `mlperf-wh config` prints them
    try:
        rows = settings_rows()
    except SettingsError as exc:
        raise SystemExit(f"error: {exc}") from None
    for row in rows:
        origin = "default" if row["source"] == "default" else f"env; default {row['default'] or '(unset)'}"
        print(f"{row['variable']}={row['value'] or ''}  [{origin}]  {row['meaning']}")
