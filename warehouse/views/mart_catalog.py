"""What each mart is, for a reader choosing one: sql/marts/_catalog.toml (grain, key, caveats, what
must be loaded for it to have rows, two example queries) and its lineage, read from the SQL itself
(sql/_reads.json: the relations each model reads), not written by hand. docs/views.md renders both."""
from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass

from warehouse.views.catalog import SQL_DIR, ViewFile, definitions

CATALOG_FILE_NAME = "_catalog.toml"
# what a mart's `needs` may name, and the command that loads it
NEEDS = {"claims": "mlperf-wh claims load", "decisions": "mlperf-wh decisions load",
         "measurements": "mlperf-wh measurements load", "trees": "mlperf-wh trees",
         "prices": "mlperf-wh prices load"}
# the source table that holds each need once loaded (an empty answer says which load it waits for)
NEEDED_TABLE = {"trees": "tree_files", "claims": "claims", "decisions": "decisions",
                "measurements": "own_measurements", "prices": "prices"}
EXAMPLES = 2


@dataclass(frozen=True)
class Example:
    title: str
    sql: str


@dataclass(frozen=True)
class MartEntry:
    name: str
    grain: str
    key: tuple[str, ...]
    no_key: str | None
    caveats: tuple[str, ...]
    needs: tuple[str, ...]
    examples: tuple[Example, ...]


def catalog_file():
    return SQL_DIR / "marts" / CATALOG_FILE_NAME


@functools.lru_cache(maxsize=None)
def _raw() -> dict:
    with catalog_file().open("rb") as f:
        return tomllib.load(f)


def entries() -> dict[str, MartEntry]:
    return {name: MartEntry(name, raw.get("grain", ""), tuple(raw.get("key", [])), raw.get("no_key"),
                            tuple(raw.get("caveats", [])), tuple(raw.get("needs", [])),
                            tuple(Example(e.get("title", ""), e.get("sql", "").strip()) for e in raw.get("examples", [])))
            for name, raw in _raw().items()}


def problems(marts: list[str] | None = None) -> list[str]:
    """What the catalog lacks or gets wrong: a mart without grain, key (or no_key saying why),
    caveats or two titled examples; a need it does not know; an entry for no mart."""
    marts = marts if marts is not None else [v.name for v in definitions() if v.layer == "marts"]
    found = [f"{name}: no such mart" for name in entries() if name not in marts]
    for name in marts:
        entry = entries().get(name)
        if entry is None:
            found.append(f"{name}: not in sql/marts/{CATALOG_FILE_NAME}")
            continue
        if not entry.grain.strip():
            found.append(f"{name}: no grain")
        if not entry.key and not (entry.no_key or "").strip():
            found.append(f"{name}: no key, and no no_key saying why")
        if not entry.caveats or not all(c.strip() for c in entry.caveats):
            found.append(f"{name}: no caveats")
        if len(entry.examples) != EXAMPLES or not all(e.title.strip() and e.sql for e in entry.examples):
            found.append(f"{name}: not {EXAMPLES} examples, each with a title and SQL")
        found += [f"{name}: needs {n!r}: not one of {', '.join(NEEDS)}" for n in entry.needs if n not in NEEDS]
    found += [f"need {n!r} names no table that holds it (NEEDED_TABLE)" for n in NEEDS if n not in NEEDED_TABLE]
    return found


@dataclass(frozen=True)
class Lineage:
    inputs: tuple[str, ...]    # the relations the mart's SQL reads
    sources: tuple[str, ...]   # the source tables it reads in the end, through every model between


def lineage(name: str, views: list[ViewFile] | None = None) -> Lineage:
    views = views if views is not None else definitions()
    by_name = {v.name: v for v in views}

    @functools.lru_cache(maxsize=None)
    def sources_of(model: str) -> frozenset[str]:
        if model not in by_name:
            return frozenset({model})
        return frozenset().union(*(sources_of(r) for r in by_name[model].relations - {model}))

    inputs = sorted(by_name[name].relations - {name})
    return Lineage(tuple(inputs), tuple(sorted(sources_of(name))))
