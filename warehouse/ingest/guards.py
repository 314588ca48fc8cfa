"""Load guards: a file that would lose or replace good data is refused, and the round stays as it
was. Each guard can be overridden by name (`--allow GUARD`); an override is recorded in
`sources.overrides`, so the lineage says which loads went through a guard.

Is a file whole? The evidence each format carries, as the real files show it (../shared/mlcommons):
- over HTTP, the body against its Content-Length (warehouse/ingest/fetch.py: fewer bytes is a failed
  fetch, retried, never loaded);
- the JSON formats (summary_results.json, summary.json) have a closing record, the final `]` or `}`:
  a file cut anywhere is not JSON (MalformedFile);
- the checker's summary.csv has none: no result IDs (the final-report tool numbers entries from the
  rows it gets), no count, no footer, rows in the order the checker walked the tree (the v5.0 CSV:
  open before closed, not sorted). What a complete one does have: every line ends with a line
  break, the last one too, and has the header's fields (`incomplete-last-line`). A CSV cut at a line
  break is whole by both, so its count is checked against what is known of the round:
- `short-of-round`: a round whose published final table rounds.toml states (`records`, counted from
  the published files) is refused from a file with fewer records. Every format has at least that
  many: the final table has one record per (entry, model, scenario), the checker's files one per
  result and a power result its own (the v5.0 files: 1285 records in each of the three formats);
- `shrink`: a reload against the rows of the load it replaces.
A first load of a round rounds.toml gives no count for, from a CSV without Content-Length, has no
evidence left: it loads (its rows are in `sources.rows_read` and load_events).

A withdrawal is not a cut (docs/definitions.md, "A withdrawal"): MLCommons withdraws a result by
publishing the round's table again without it. A reload short of the round's count is loaded, its
missing rows recorded `withdrawn`, when the table is whole by its own marks and its other evidence
holds (`withdrawal`): the round was loaded before; every result of the new table is one of the
loaded ones (a cut loses rows, it adds none); it lacks at most MLPERF_WITHDRAWAL_LIMIT (0.02) of the
round's records, at least one; and a CSV, which has no closing mark, still ends with the record the
loaded table ended with (a CSV cut at a line break loses its last records). A table cut short, or
lacking most of its rows, is still refused by `short-of-round`.

The result IDs in a final table are `{MAJOR.MINOR}-{NNNN}` (`v4.1-0001` in v4.1): their prefix
names the round. The Details and Code URLs are no marker: the unofficial v5.0 final table links to
`submissions_inference_4.1` in every row."""
from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import polars as pl

from warehouse import settings
from warehouse.errors import ExpectedFailure

GUARDS = {
    "round-markers": "the file's result IDs or version column name another round",
    "all-quarantined": "every row of a non-empty file failed validation",
    "shrink": "the reload would shrink the loaded rows by more than MLPERF_SHRINK_LIMIT (0.10)",
    "incomplete-last-line": "the CSV's last line is cut short (a truncated download)",
    "short-of-round": "the file has fewer records than the round was published with (rounds.toml records) "
                      "and is no withdrawal",
}


class GuardRefused(ExpectedFailure):
    """A load refused by a guard; the round is left as it was."""

    def __init__(self, guard: str, message: str):
        super().__init__(f"{message} (nothing loaded; --allow {guard} to load it anyway)")
        self.guard = guard


@dataclass(frozen=True)
class Finding:
    guard: str
    message: str


def shrink_limit() -> float:
    return settings.current().shrink_limit


def _round_version(round_name: str) -> str:
    return round_name.removeprefix("v")


def round_markers(raw: pl.DataFrame, fmt: str, round_name: str, label: str) -> Finding | None:
    """The file's own round markers (a `version` column; result IDs, in whichever format carries
    them) must name the round it is loaded as."""
    markers = []
    if "version" in raw.columns:
        markers.append(("the version column says", pl.col("version").str.strip_chars().str.strip_prefix("v")))
    if "ID" in raw.columns:
        markers.append(("the result IDs say", pl.col("ID").str.strip_chars().str.extract(r"^v?(.+)-[^-]*$", 1)))
    expected = _round_version(round_name)
    contradictions = []
    for name, marker in markers:
        found = raw.select(marker.alias("m")).filter(pl.col("m").is_not_null() & (pl.col("m") != ""))
        other = found.filter(pl.col("m") != expected)
        if other.height:
            named = ", ".join(f"{v} ({n} rows)" for v, n in other.group_by("m").len()
                              .sort("len", descending=True).head(3).iter_rows())
            contradictions.append(f"{name} {named}")
    if not contradictions:
        return None
    return Finding("round-markers", f"{label}: the file belongs to another round than {round_name}: "
                                    + "; ".join(contradictions))


def all_quarantined(rows_read: int, rows_loaded: int, label: str) -> Finding | None:
    if rows_read > 0 and rows_loaded == 0:
        return Finding("all-quarantined", f"{label}: every one of its {rows_read} rows failed "
                                          "validation (see the reasons with --allow all-quarantined, "
                                          "in the quarantine table)")
    return None


def incomplete_last_line(content: bytes, fmt: str, label: str) -> Finding | None:
    """A CSV cut mid-line: its last record has fewer fields than the header, or no line break (the
    checker ends every line with one; a cut inside the last field leaves all the fields)."""
    if fmt != "checker_csv":
        return None
    if content.strip() and not content.endswith(b"\n"):
        return Finding("incomplete-last-line", f"{label}: the last line has no line break: the file "
                                               "was cut short")
    try:
        rows = [r for r in csv.reader(io.StringIO(content.decode("utf-8-sig"), newline="")) if r]
    except (csv.Error, UnicodeDecodeError):
        return None  # the parser reports an unreadable file itself
    if len(rows) >= 2 and len(rows[-1]) < len(rows[0]):
        return Finding("incomplete-last-line", f"{label}: the last line has {len(rows[-1])} of "
                                               f"{len(rows[0])} fields: the file was cut short")
    return None


def short_of_round(rows_read: int, published: int | None, round_name: str, label: str) -> Finding | None:
    """Fewer records than the round's published final table had (None: no count known)."""
    if published is None or rows_read >= published:
        return None
    return Finding("short-of-round", f"{label}: {rows_read} records, but {round_name} was published with "
                                     f"{published} (warehouse/identity/reference/rounds.toml): the file "
                                     "is incomplete")


@dataclass(frozen=True)
class Reload:
    """What a reload of a source knows of the rows it replaces (warehouse.ingest.history)."""
    added: int                 # results of the new table the loaded one lacks
    last_record_kept: bool     # the loaded table's last record is in the new one


def withdrawal_limit() -> float:
    return settings.current().withdrawal_limit


def withdrawal(rows_read: int, published: int | None, fmt: str, reload: Reload | None,
               limit: float | None = None) -> bool:
    """A table `short-of-round` would refuse that is MLCommons withdrawing results (the module's
    docstring): loaded, not refused. `reload` None: the round was never loaded (nothing to compare)."""
    if published is None or rows_read >= published or reload is None:
        return False
    limit = withdrawal_limit() if limit is None else limit
    allowed = max(1, int(published * limit))
    whole = fmt != "checker_csv" or reload.last_record_kept
    return whole and reload.added == 0 and published - rows_read <= allowed


def shrinks(previous_loaded: int | None, rows_loaded: int, label: str,
            limit: float | None = None) -> Finding | None:
    limit = shrink_limit() if limit is None else limit
    if not previous_loaded or rows_loaded >= previous_loaded * (1 - limit):
        return None
    drop = 1 - rows_loaded / previous_loaded
    return Finding("shrink", f"{label}: would replace {previous_loaded} loaded rows with "
                             f"{rows_loaded} ({drop:.0%} fewer; the limit is {limit:.0%}, "
                             "MLPERF_SHRINK_LIMIT)")


def enforce(findings: list[Finding | None], allow: frozenset[str] | set[str] | list[str],
            excused: frozenset[str] = frozenset()) -> list[str]:
    """Raise for the first finding not allowed; return the guards overridden (for lineage). A guard
    `excused` by the file's evidence (a withdrawal) is neither raised nor an override."""
    overridden = []
    for finding in findings:
        if finding is None or finding.guard in excused:
            continue
        if finding.guard not in allow:
            raise GuardRefused(finding.guard, finding.message)
        overridden.append(finding.guard)
    return sorted(set(overridden))
