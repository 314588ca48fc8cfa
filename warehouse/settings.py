"""Every MLPERF_* environment variable the tool reads, in one typed place: its type, default and meaning.

Read at call time (`current()`), never cached at import, so a variable set before a command (or by a
test) applies to it. A value that does not parse is one line naming the variable, not a traceback.
`settings_rows()` lists them for `mlperf-wh config`."""
from __future__ import annotations

import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Annotated

from pydantic import Field, ValidationError, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

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


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, env_ignore_empty=True, extra="ignore",
                                      validate_default=True, frozen=True)

    source: str = Field("https://raw.githubusercontent.com/mlcommons", description=(
        "where rounds are fetched from when --source is not given: an http(s):// base URL, a directory "
        "or a file:// URL laid out like the round repositories"))
    warehouse_db: str = Field("warehouse/mlperf.duckdb", description=(
        "the warehouse file when --db is not given (relative to the current directory)"))
    reference_dir: Path | None = Field(None, description=(
        "a directory holding your edited copy of the reference tables (accelerators.csv, benchmarks.csv, "
        "rack_capacity.csv); unset: the tables shipped in the package"))
    debug: bool = Field(False, description="print the traceback of a failure (as -v does); any value but 0 means yes")
    fetch_connect_timeout: float = Field(10.0, gt=0, le=DAY, allow_inf_nan=False, description="seconds to connect to the source, per request")
    fetch_read_timeout: float = Field(60.0, gt=0, le=DAY, allow_inf_nan=False, description="seconds without a byte from the source before a read fails")
    fetch_max_bytes: int = Field(64 * MIB, gt=0, le=16 * 1024 * MIB, description="largest file a fetch accepts, in bytes")
    fetch_retries: int = Field(3, ge=0, le=100, description="retries of a failed fetch (timeouts, 5xx, cut bodies)")
    fetch_backoff: float = Field(1.0, ge=0, le=3600, allow_inf_nan=False, description=(
        "seconds before the first retry; doubled for each next one"))
    fetch_deadline: float = Field(600.0, gt=0, le=DAY, allow_inf_nan=False, description=(
        "seconds one attempt at one file may take, redirects included (stops a slow-drip server)"))
    redirect_hosts: Annotated[tuple[str, ...], NoDecode] = Field((), description=(
        "comma-separated hosts a redirect may lead to, besides the source's own host"))
    shrink_limit: float = Field(0.10, ge=0, le=1, allow_inf_nan=False, description=(
        "the `shrink` guard: the largest share of a source's loaded rows a reload may drop"))
    writer_wait: float = Field(60.0, ge=0, le=DAY, allow_inf_nan=False, description=(
        "seconds a run waits for another run's writer lock on the warehouse before failing"))
    prefect_startup_timeout: float = Field(120.0, gt=0, le=DAY, allow_inf_nan=False, description=(
        "seconds Prefect's temporary API server may take to start (a first start migrates its database)"))
    sql_timeout: float = Field(60.0, gt=0, le=DAY, allow_inf_nan=False, description=(
        "seconds one `mlperf-wh sql` query may run before it is stopped"))
    sql_memory_limit: str = Field("25%", description=(
        "memory one `mlperf-wh sql` query may use: a share of this machine's memory (25%) or a size (8GB, 512MiB)"))
    watch_cron: str = Field("0 6 * * *", description="cron schedule of the watch-rounds deployment (`serve`), UTC")
    dask_address: str | None = Field(None, description=(
        "a Dask scheduler (tcp://HOST:8786) the tree ingest runs its chunks on; unset: a thread pool here"))
    export_dir: Path | None = Field(None, description=(
        "where a run that loaded something regenerates the BI export; unset: not regenerated"))
    report_dir: Path | None = Field(None, description=(
        "where a run that loaded something regenerates the report; unset: not regenerated"))
    published_storage: str | None = Field(None, pattern=r"^v\d+\.\d+\.\d+$", description=(
        "DuckDB storage version of the published read-only copy, e.g. v1.0.0 so DuckDB 1.x readers "
        "(Metabase's driver, older DBeaver) open it; unset: the writer's own (a plain file copy, fastest)"))

    @field_validator("redirect_hosts", mode="before")
    @classmethod
    def _comma_separated(cls, value):
        if isinstance(value, str):
            return tuple(h.strip().lower() for h in value.split(",") if h.strip())
        return value

    @field_validator("source")
    @classmethod
    def _well_formed_url(cls, value):
        if (problem := url_problem(value)) is not None:
            raise ValueError(problem)
        return value

    @field_validator("reference_dir")
    @classmethod
    def _existing_directory(cls, value):
        if value is not None and not value.is_dir():
            raise ValueError("no such directory (it holds your copy of the reference tables)")
        return value

    @field_validator("sql_memory_limit")
    @classmethod
    def _memory_size(cls, value):
        memory_size(value)
        return value.strip()

    @field_validator("debug", mode="before")
    @classmethod
    def _anything_but_zero(cls, value):
        return str(value).strip().lower() not in ("", "0", "false", "no", "off")


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
    return Settings.model_fields[field_name].default


def current() -> Settings:
    """The settings as the environment has them now."""
    return _settings_of(frozenset((name, value) for name, value in os.environ.items()
                                  if name.upper().startswith(ENV_PREFIX)))


@lru_cache(maxsize=8)
def _settings_of(_variables: frozenset[tuple[str, str]]) -> Settings:
    # Keyed by the MLPERF_* variables, the only input Settings reads: building one reads and
    # validates every field again (1.5 ms; a cold backfill asked for them eight times).
    try:
        return Settings()
    except ValidationError as exc:
        problems = "; ".join(f"{variable(str(e['loc'][0]))}={e.get('input')!r}: {e['msg'].removeprefix('Value error, ')}"
                             for e in exc.errors())
        raise SettingsError(problems) from None


def settings_rows() -> list[dict[str, str | None]]:
    """One row per setting: variable, value, default, meaning, source ('env' or 'default')."""
    settings = current()
    rows = []
    for name, field in Settings.model_fields.items():
        env_value = os.environ.get(variable(name), "")
        rows.append({"variable": variable(name), "value": _text(getattr(settings, name)),
                     "default": _text(field.default), "meaning": field.description,
                     "source": "env" if env_value else "default"})
    return rows


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
