"""Claims ledger and decision records: TOML files -> validated frames -> DuckDB tables."""
from __future__ import annotations

import datetime as dt
import math
import tomllib
from pathlib import Path

import duckdb
import polars as pl

from schemas.claims import Claim, Decision
from schemas.results import SCENARIOS
from schemas.failures import validated
from warehouse.errors import ExpectedFailure
from warehouse.inputs import (check_depth, marts_names, old_name_notes, normalised_id, read_bounded, require_final_line_break,
                              text_of)
from warehouse.identity.reference import Reference, default_reference
from warehouse.nearest import did_you_mean
from warehouse.views.identities import canonical_accelerators
from warehouse.identity.round_table import named_rounds
from warehouse.identity.rounds import ROUND_PATTERN, load_registry, round_sort_key
from warehouse.store import db


class LedgerError(ExpectedFailure, ValueError):
    """An invalid claims or decisions file; the message names the file, the entry and the field."""


def _text(value) -> str:
    if not isinstance(value, str):
        raise ValueError(f"expected text, got {type(value).__name__} {value!r}")
    return value


# TOML integers are 64-bit; Python's tomllib reads any size, which DuckDB's BIGINT cannot hold.
INT64 = range(-2**63, 2**63)


def _number(value) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"expected a number, got {value!r}")
    if isinstance(value, int) and value not in INT64:
        raise ValueError(f"expected a number, got {_shown(value)} (out of range)")
    if not math.isfinite(value):
        raise ValueError(f"expected a finite number, got {value!r}")
    return float(value)


def _integer(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"expected a whole number, got {value!r}")
    if value not in INT64:
        raise ValueError(f"expected a whole number, got {_shown(value)} (out of range)")
    return value


def _shown(value: int) -> str:
    """An integer as it is written, shortened when long (a 5,000-digit number is still one line)."""
    if value.bit_length() > 1000:  # str() of a very long integer is refused by Python itself
        return f"an integer of {value.bit_length()} bits"
    digits = str(value)
    return digits if len(digits) <= 24 else f"{digits[:20]}... ({len(digits)} digits)"


def _date(value) -> dt.date:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    if isinstance(value, str):
        try:
            return dt.date.fromisoformat(value)
        except ValueError:
            pass
    raise ValueError(f"expected a date (YYYY-MM-DD), got {value!r}")


def _id(value) -> str:
    """An id as stored and compared: trimmed, case-folded; control and bidi characters refused."""
    return normalised_id(_text(value), "the id")


def _id_list(value) -> list[str]:
    return [normalised_id(v, "the id") for v in _text_list(value)]


def _text_list(value) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"expected a list of text, got {value!r}")
    return value


def _text_or_list(value) -> list[str]:
    """measured_by: a sentence, or a list of own-measurement labels and run ids (and sentences)."""
    return [_text(value)] if isinstance(value, str) else _text_list(value)


def _flag(value) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"expected true or false, got {value!r}")
    return value


def _review_due(value) -> str:
    return _date(value).isoformat() if isinstance(value, dt.date) else _text(value)


CLAIM_FIELDS = {
    "id": (_id, True), "vendor": (_text, True), "source": (_text, True),
    "published_on": (_date, True), "statement": (_text, True), "round": (_text, True),
    "model": (_text, True), "scenario": (_text, False), "kind": (_text, True),
    "accelerator": (_text, False), "baseline_accelerator": (_text, False),
    "accelerator_count": (_integer, False), "baseline_accelerator_count": (_integer, False),
    "round_from": (_text, False), "submitter": (_text, False), "basis": (_text, False),
    "multiplier": (_number, False), "direction": (_text, False), "stage": (_text, True),
    "cited_result_ids": (_text_list, False), "outside_mlperf": (_flag, False),
}
# A claim's fields in the marts' names -> the columns of the claims table (which int_claim_audit reads).
CLAIM_COLUMNS = {"accelerator_count": "total_accelerators", "baseline_accelerator_count": "baseline_total_accelerators"}
DECISION_FIELDS = {
    "id": (_id, True), "title": (_text, True), "workload": (_text, True), "metric": (_text, True),
    "measured_by": (_text_or_list, True), "claims_used": (_id_list, True),
    "claims_excluded": (_id_list, False), "decision": (_text, True), "decided_on": (_date, True),
    "review_due": (_review_due, True),
}


def read_entries(path: Path, table: str, allow_empty: bool = False) -> list[dict]:
    """The file's [[table]] entries. A file with none would remove every entry it loaded before:
    refused unless `allow_empty`."""
    text = text_of(read_bounded(path, "ledger", LedgerError), str(path), LedgerError)
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise LedgerError(f"{path}: not valid TOML ({exc})") from exc
    except ValueError as exc:  # an integer too long for Python to read (over 4300 digits)
        raise LedgerError(f"{path}: not valid TOML ({exc})") from None
    except RecursionError:
        raise LedgerError(f"{path}: not valid TOML (nested too deeply)") from None
    check_depth(document, f"{path}: not valid TOML", LedgerError)
    require_final_line_break(text, str(path), LedgerError)  # a TOML file cut mid-value may still parse
    entries = document.get(table, [])
    if not isinstance(entries, list):
        raise LedgerError(f"{path}: no [[{table}]] tables found ({table!r} is not a list of tables)")
    if not entries and not allow_empty:
        raise LedgerError(f"{path}: no [[{table}]] tables found (an empty file would remove every "
                          f"{table} it loaded before: --allow-empty to load it anyway)")
    return entries


def coerce(entries: list[dict], fields: dict, path: Path, table: str, notes: list[str] | None = None) -> list[dict]:
    """Each entry's fields converted; an old field name read as the marts' name (added to `notes`)."""
    rows, problems = [], []
    for number, entry in enumerate(entries, start=1):
        name = _entry_name(table, number, entry)
        if isinstance(entry, dict):
            try:
                entry, renamed = marts_names(entry, f"{table}s", name)
            except ValueError as exc:
                problems.append(str(exc))
                renamed = []
            if notes is not None:
                notes += renamed
        row = {}
        for field in sorted(set(entry) - set(fields)):
            problems.append(f"{name}: unknown field {field!r}")
        for field, (convert, required) in fields.items():
            if field not in entry:
                if required:
                    problems.append(f"{name}: field {field!r} is missing")
                row[field] = None
                continue
            try:
                row[field] = convert(entry[field])
            except ValueError as exc:
                problems.append(f"{name}: field {field!r}: {exc}")
        rows.append(row)
    if problems:
        raise LedgerError(f"{path}: " + "; ".join(problems))
    return rows


def _entry_name(table: str, number: int, entry: dict) -> str:
    ident = entry.get("id") if isinstance(entry, dict) else None
    return f"{table} {ident!r}" if isinstance(ident, str) and ident else f"{table} #{number} (no id)"


def validate(frame: pl.DataFrame, model, path: Path, table: str) -> pl.DataFrame:
    checked, failures = validated(model, frame)
    if not failures:
        return checked
    problems = []
    named = {column: field for field, column in CLAIM_COLUMNS.items()}  # a field as the file names it
    for failure in failures:
        ident = frame["id"][failure.index] if failure.index is not None else None
        who = f"{table} {ident!r}" if ident else f"{table} #{(failure.index or 0) + 1}"
        problems.append(f"{who}: field {named.get(failure.column, failure.column) or '(entry)'!r} failed {failure.check} (got {failure.got!r})")
    raise LedgerError(f"{path}: " + "; ".join(dict.fromkeys(problems)))


def claims_frame(path: Path, ref: Reference | None = None, allow_empty: bool = False,
                 notes: list[str] | None = None, rounds: list[str] | None = None) -> pl.DataFrame:
    """Pure apart from reading the file: TOML -> validated claims frame. Raises LedgerError. `rounds`:
    the round names the warehouse knows (round_table.named_rounds; default the registry's)."""
    ref = ref or default_reference()
    rows = coerce(read_entries(path, "claim", allow_empty), CLAIM_FIELDS, path, "claim", notes)
    rows = [{CLAIM_COLUMNS.get(field, field): value for field, value in row.items()} for row in rows]
    canonical = canonical_accelerators(
        [row[f] for row in rows for f in ("accelerator", "baseline_accelerator") if row[f] is not None], ref)
    benchmarks = dict(ref.benchmarks.filter(pl.col("kind") == "benchmark")
                      .select(pl.col("alias").str.to_lowercase(), "benchmark").iter_rows())
    problems = []
    for row in rows:
        outside_mlperf = row.pop("outside_mlperf")
        problems += unknown_names(row, outside_mlperf, benchmarks, rounds if rounds is not None else list(load_registry()))
        row["benchmark"] = benchmarks.get(row["model"].lower(), row["model"])
        row["direction"] = row["direction"] or "throughput"
        for field in ("accelerator", "baseline_accelerator"):
            if row[field] is not None:
                if canonical[row[field]] is None:
                    problems.append(f"claim {row['id']!r}: field {field!r}: {row[field]!r} matches no "
                                    "accelerator in warehouse/identity/reference/accelerators.csv"
                                    + did_you_mean(row[field], ref.accelerators["accelerator"].unique().to_list()))
                row[field] = canonical[row[field]]
    if problems:
        raise LedgerError(f"{path}: " + "; ".join(problems))
    schema = {name: dtype for name, dtype in Claim.to_schema().dtypes.items()}
    frame = pl.DataFrame(rows, schema={n: _polars_type(t) for n, t in schema.items()})
    return validate(frame, Claim, path, "claim")


def unknown_names(claim: dict, outside_mlperf: bool | None, benchmarks: dict[str, str], rounds: list[str]) -> list[str]:
    """What a claim names that the warehouse does not know, each with the nearest known names (as an
    unknown accelerator is said): a benchmark (unless `outside_mlperf = true`: a model MLPerf does not
    run, recorded and never reproduced), a scenario, a round. Such a claim would load and audit as
    "unsupported: no rows reproduce it", which reads as a verdict on the vendor, not on the file."""
    who = f"claim {claim['id']!r}"
    problems = []
    if not outside_mlperf and claim["model"].lower() not in benchmarks:
        problems.append(f"{who}: field 'model': {claim['model']!r} is no MLPerf benchmark of "
                        "warehouse/identity/reference/benchmarks.csv"
                        f"{did_you_mean(claim['model'], sorted(set(benchmarks.values())))} (a model MLPerf "
                        "does not run: outside_mlperf = true)")
    if claim["scenario"] is not None and claim["scenario"] not in SCENARIOS:
        problems.append(f"{who}: field 'scenario': {claim['scenario']!r} is no MLPerf scenario"
                        f"{did_you_mean(claim['scenario'], SCENARIOS)}")
    for field in ("round", "round_from"):
        if (problem := unknown_round(claim[field], rounds)) is not None:
            problems.append(f"{who}: field {field!r}: {problem}")
    return problems


def unknown_round(name: str | None, rounds: list[str], later_allowed: bool = False) -> str | None:
    """Why a round name is refused (None: the warehouse knows it, it is no round name at all, which
    the schema says, or `later_allowed` and it would come after every round known: not published yet)."""
    if name is None or name in rounds or not ROUND_PATTERN.fullmatch(name):
        return None
    if later_allowed and round_sort_key(name) > max(map(round_sort_key, rounds)):
        return None
    return (f"{name!r} is no round the warehouse knows (rounds.toml, or found by `mlperf-wh watch`)"
            f"{did_you_mean(name, rounds)}")


def _polars_type(dtype):
    return dtype.type if hasattr(dtype, "type") else dtype


def load_claims(con: duckdb.DuckDBPyConnection, path: Path, replace: bool = False,
                allow_empty: bool = False, warn=None) -> int:
    """Load (or reload) one claims file; a claim id another file owns is an error unless `replace`.
    `warn(message)` hears of each old field name read as the marts' name."""
    notes: list[str] = []
    frame = claims_frame(path, allow_empty=allow_empty, notes=notes, rounds=named_rounds(con)).with_columns(
        pl.lit(str(Path(path).resolve())).alias("claim_file"))
    if not replace:
        _refuse_ids_owned_elsewhere(con, frame, path, "claim")
    for line in old_name_notes(notes, "claims", str(path), "claims") if warn is not None else []:
        warn(line)
    with db.registered(con, _claims=frame), db.transaction(con):
        normalise_stored_ids(con)
        con.execute("DELETE FROM claims WHERE claim_file = ? OR id IN (SELECT id FROM _claims)",
                    [str(Path(path).resolve())])
        con.execute("INSERT INTO claims BY NAME SELECT * FROM _claims")
    return frame.height


# An id as the ledger compares it (ids loaded before they were normalised may still differ).
NORMAL_ID = "lower(trim(c.id))"


def normalise_stored_ids(con: duckdb.DuckDBPyConnection) -> None:
    """Ids stored before they were normalised (trimmed, case-folded), normalised in place with the
    references to them, so a claim and the decisions citing it keep meeting. One that would collide
    with another stored id is left as it is (an operator's call: `--replace` moves it)."""
    for table in ("claims", "decisions"):
        con.execute(f"""UPDATE {table} AS c SET id = {NORMAL_ID} WHERE c.id <> {NORMAL_ID}
                        AND (SELECT count(*) FROM {table} o WHERE lower(trim(o.id)) = {NORMAL_ID}) = 1""")
    con.execute("""UPDATE decisions SET
                       claims_used = list_transform(claims_used, lambda x: lower(trim(x))),
                       claims_excluded = list_transform(claims_excluded, lambda x: lower(trim(x)))
                   WHERE claims_used <> list_transform(claims_used, lambda x: lower(trim(x)))
                      OR claims_excluded <> list_transform(claims_excluded, lambda x: lower(trim(x)))""")


def _refuse_ids_owned_elsewhere(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame, path: Path,
                                table: str) -> None:
    """An id another file loaded stays that file's unless --replace moves it (table: claim | decision)."""
    with db.registered(con, _incoming=frame):
        owned = con.execute(f"SELECT c.id, c.{table}_file FROM {table}s c JOIN _incoming n ON {NORMAL_ID} = n.id "
                            f"WHERE c.{table}_file <> n.{table}_file ORDER BY c.id").fetchall()
    if owned:
        named = "; ".join(f"{table} {cid!r} is owned by {owner}" for cid, owner in owned[:5])
        raise LedgerError(f"{path}: {named} (load with --replace to move it to this file)")


# ---------------------------------------------------------------------------------------------
# decisions


def decisions_frame(path: Path, known_claims: set[str], allow_empty: bool = False,
                    rounds: list[str] | None = None) -> pl.DataFrame:
    """`rounds`: the round names the warehouse knows (round_table.named_rounds; default the
    registry's): a review round must be one of them, or one after them all (not published yet)."""
    rounds = rounds if rounds is not None else list(load_registry())
    rows = coerce(read_entries(path, "decision", allow_empty), DECISION_FIELDS, path, "decision")
    problems = []
    for row in rows:
        row["measured_by_items"] = row["measured_by"]
        row["measured_by"] = "; ".join(row["measured_by"])
        row["claims_excluded"] = row["claims_excluded"] or []  # optional: none considered and left out
        for field in ("claims_used", "claims_excluded"):
            for claim_id in row[field] or []:
                if claim_id not in known_claims:
                    problems.append(f"decision {row['id']!r}: field {field!r}: unknown claim id {claim_id!r}"
                                    " (load its claims file first)")
        due = row["review_due"]
        row["review_round"], row["review_date"] = None, None
        if due == "next":
            pass  # the first round published after decided_on, whatever its name (decisions_due.sql)
        elif due and ROUND_PATTERN.fullmatch(due):
            row["review_round"] = due
            if (problem := unknown_round(due, rounds, later_allowed=True)) is not None:
                problems.append(f"decision {row['id']!r}: field 'review_due': {problem}")
        elif due:
            try:
                row["review_date"] = dt.date.fromisoformat(due)
            except ValueError:
                problems.append(f"decision {row['id']!r}: field 'review_due': {due!r} is not a round, "
                                "'next' or a date")
    if problems:
        raise LedgerError(f"{path}: " + "; ".join(problems))
    schema = {n: _polars_type(t) for n, t in Decision.to_schema().dtypes.items()}
    return validate(pl.DataFrame(rows, schema=schema), Decision, path, "decision")


def load_decisions(con: duckdb.DuckDBPyConnection, path: Path, replace: bool = False,
                   allow_empty: bool = False) -> int:
    """Load (or reload) one decisions file; a decision id another file owns is an error unless `replace`."""
    known = {cid.strip().lower() for (cid,) in con.execute("SELECT id FROM claims").fetchall()}
    frame = decisions_frame(path, known, allow_empty, named_rounds(con)).with_columns(
        pl.lit(str(Path(path).resolve())).alias("decision_file"))
    if not replace:
        _refuse_ids_owned_elsewhere(con, frame, path, "decision")
    with db.registered(con, _decisions=frame), db.transaction(con):
        normalise_stored_ids(con)
        con.execute("DELETE FROM decisions WHERE decision_file = ? OR id IN (SELECT id FROM _decisions)",
                    [str(Path(path).resolve())])
        con.execute("INSERT INTO decisions BY NAME SELECT * FROM _decisions")
    return frame.height


def due_decision_ids(con: duckdb.DuckDBPyConnection) -> set[str]:
    try:
        return {i for (i,) in con.execute("SELECT id FROM decisions_due").fetchall()}
    except duckdb.CatalogException:
        return set()
