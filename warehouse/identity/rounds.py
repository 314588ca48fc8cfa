"""The round registry (reference/rounds.toml) and where each round's files live."""
from __future__ import annotations

import datetime as dt
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from schemas import ROUND_NAME
from warehouse import settings
from warehouse.errors import SourceMissing, UsageError
from warehouse.resources import package_dir

REFERENCE_DIR = package_dir("warehouse.identity", "reference")
DEFAULT_SOURCE = settings.default("source")
ROUND_PATTERN = re.compile(ROUND_NAME, re.ASCII)  # used with fullmatch


class InvalidRoundName(UsageError, ValueError):
    pass


def validate_round_name(name: str) -> str:
    if not isinstance(name, str) or not ROUND_PATTERN.fullmatch(name):
        raise InvalidRoundName(f"invalid round name {name!r}: expected vMAJOR.MINOR, e.g. v6.0")
    return name


def round_sort_key(name: str) -> tuple[int, int]:
    """Rounds in publication order (v10.0 after v9.1); SQL sorts by `round_order(name)`, below."""
    major, minor = ROUND_PATTERN.fullmatch(validate_round_name(name)).groups()
    return int(major), int(minor)


# round_sort_key in SQL, created with the reference tables: major x 1000 + minor.
ROUND_ORDER_MACRO = (
    "CREATE OR REPLACE MACRO round_order(name) AS "
    f"CAST(regexp_extract(name, '^{ROUND_NAME}$', 1) AS INTEGER) * 1000 "
    f"+ CAST(regexp_extract(name, '^{ROUND_NAME}$', 2) AS INTEGER)"
)


@dataclass(frozen=True)
class Round:
    name: str
    repository: str
    branch: str
    files: tuple[str, ...]
    published: dt.date | None = None   # the day MLCommons published the round's results
    records: int | None = None         # records in the published final table (summary_results.json)

    @property
    def has_table(self) -> bool:
        """MLCommons published a final table of the round (else its rows are rebuilt from its tree)."""
        return bool(self.files)

    def locations(self, source: str) -> list[tuple[str, str]]:
        """(file name, URL or local path) for every candidate file, in order of preference."""
        # A query (a private mirror's access token) stays at the end of every file's URL.
        base, mark, query = source.partition("?") if "://" in source else (source, "", "")
        base = base.rstrip("/")
        return [(f, f"{base}/{self.repository}/{self.branch}/{f}{mark}{query}") for f in self.files]


def load_registry(path: Path = REFERENCE_DIR / "rounds.toml") -> dict[str, Round]:
    entries = tomllib.loads(path.read_text(encoding="utf-8"))["round"]
    registry = {}
    for entry in entries:
        name = validate_round_name(entry["name"])
        registry[name] = Round(name, entry["repository"], entry["branch"], tuple(entry["files"]),
                               entry.get("published"), entry.get("records"))
    return registry


def published_records(round_name: str) -> int | None:
    """How many records the round's final table was published with, when rounds.toml says."""
    found = load_registry().get(round_name)
    return found.records if found else None


@dataclass(frozen=True)
class ChosenSource:
    location: str
    chosen_by: str  # '--source', 'MLPERF_SOURCE', 'remembered' or 'default'

    def said(self) -> str | None:
        """The line a command prints when the source is not the one the user named or the default."""
        if self.chosen_by != "remembered":
            return None
        return (f"source: {self.location} (where this warehouse's rounds came from; "
                "--source or MLPERF_SOURCE to change)")


def choose_source(explicit: str | None = None, db_file: str | None = None) -> ChosenSource:
    """--source, else MLPERF_SOURCE, else where the warehouse's rounds came from last (db_file given),
    else the published repositories."""
    if explicit:
        return ChosenSource(explicit, "--source")
    if settings.variable("source") in settings.set_variables():
        return ChosenSource(settings.current().source, "MLPERF_SOURCE")
    remembered = remembered_source(db_file) if db_file else None
    return ChosenSource(remembered, "remembered") if remembered else ChosenSource(DEFAULT_SOURCE, "default")


def resolve_source(explicit: str | None = None, db_file: str | None = None) -> str:
    return choose_source(explicit, db_file).location


# The file an official load fetched, below its source: <source>/inference_results_vX.Y/<branch>/<file>.
_BELOW_SOURCE = re.compile(r"^(?P<source>.+)/inference_results_v[0-9.]+/[^/]+/[^/]+$")


def remembered_source(db_file: str) -> str | None:
    """The source of the warehouse's latest official load of a round (sources.url without the round's
    own path), read from its published copy; None for a new warehouse, one that cannot be read now,
    or a source whose stored URL lost a secret (a redacted query string). A directory that no longer
    exists is SourceMissing (exit 1, naming it and the fix), never an older source or the default."""
    from warehouse.store import db
    from warehouse.store.publish import reader_path
    path = reader_path(db.db_path(db_file))
    if not Path(path).exists():
        return None
    try:
        with db.connect(str(path), read_only=True) as con:
            urls = [url for (url,) in con.execute(
                "SELECT url FROM sources WHERE origin = 'official' ORDER BY loaded_at DESC").fetchall()]
    except Exception:  # noqa: BLE001 - a warehouse that cannot be read now remembers nothing
        return None
    found = next((m for m in map(_BELOW_SOURCE.match, urls) if m), None)
    if found is None or "REDACTED" in found.string:
        return None
    source = found["source"]
    if not source.startswith(("http://", "https://")) and not Path(source).is_dir():
        raise SourceMissing(f"{source}: the source this warehouse's rounds came from (its latest load) "
                            f"{'is not a directory' if Path(source).exists() else 'no longer exists'}; give the "
                            "source again with --source DIR_OR_URL or MLPERF_SOURCE, or put the directory back")
    return source


def parse_round_list(text: str) -> list[str]:
    """'v5.1, v6.0' -> ['v5.1', 'v6.0']; empty means every round."""
    return [r.strip() for r in text.split(",") if r.strip()]


def resolve_rounds(requested: list[str] | None, registry: dict[str, Round]) -> list[Round]:
    if not requested:
        return list(registry.values())
    unknown = [r for r in requested if validate_round_name(r) not in registry]
    if unknown:
        raise InvalidRoundName(
            f"unknown round(s) {', '.join(unknown)}; known: {', '.join(registry)}"
            " (add them to warehouse/identity/reference/rounds.toml)"
        )
    return [registry[r] for r in requested]


def with_tables(rounds: list[Round], named: bool) -> list[Round]:
    """The rounds a table load reads: every round asked for with a published table. A round named
    that has none is refused, naming the command that loads it."""
    without = [r.name for r in rounds if not r.has_table]
    if named and without:
        raise InvalidRoundName(f"{', '.join(without)}: MLCommons published no table of this round; "
                               f"`mlperf-wh trees --rounds {','.join(without)}` rebuilds its rows from its "
                               "submission tree")
    return [r for r in rounds if r.has_table]


def previous_round_of(name: str, names: list[str]) -> str | None:
    earlier = [n for n in names if round_sort_key(n) < round_sort_key(name)]
    return max(earlier, key=round_sort_key) if earlier else None


DEFAULT_FILES = ("summary_results.json", "summary.json", "summary.csv")


def round_named(name: str) -> Round:
    """A round not in the registry, laid out as every published round is."""
    return Round(validate_round_name(name), f"inference_results_{name}", "main", DEFAULT_FILES)


def following_round_names(name: str) -> list[str]:
    """The names the round after `name` may carry: the next minor, then the next major (v6.1 ->
    v6.2, v7.0); MLCommons went v5.0, v5.1, v6.0, v6.1."""
    major, minor = round_sort_key(name)
    return [f"v{major}.{minor + 1}", f"v{major + 1}.0"]
