"""Loading what a tree gave: the run summaries and system descriptions validated together (one Pandera
pass per table and harness) and loaded in one transaction (`check`, `load`); and for a round
MLCommons published no table of, its rows rebuilt from the tree (rebuilding.py) loaded as their own
source, source_id 'rebuilt/<round>', sources.origin 'tree', format 'submission_tree', url the tree's
root, replacing the round's earlier rebuild whole (`frames`, `load_rebuilt`). Every quarantined file
is a quarantine record naming its path (raw_record: path and text; reasons).

Only a round MLCommons published no table of is rebuilt this way (the registry lists no file for it):
a round with a table is the table's, and its rebuild is only compared with it (reconstruction.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import NamedTuple

import polars as pl

from schemas.endpoints import LOADGEN
from schemas import polars_types
from schemas.failures import failures_of
from schemas.power import PowerReading
from schemas.results import CanonicalResult
from schemas.trees import SUMMARY_MODELS, SystemDescription
from warehouse.identity.rounds import round_sort_key
from warehouse.store import db
from warehouse.store.db import RESULT_COLUMNS
from warehouse.store.tree_tables import SUMMARY_TYPES, SYSTEM_TYPES, polars_schema
from warehouse.trees.fetching import PARSERS, FileOutcome
from warehouse.trees.rebuilding import FORMAT, ORIGIN, SOURCE_PREFIX, Rebuilt


class Kind(NamedTuple):
    models: dict[str | None, type]  # the Pandera model a parsed row must pass, by its harness (None: any)
    types: dict[str, str]          # column -> type (warehouse/store/tree_tables.py)
    table: str
    key: str                       # the table's key column, besides round


KINDS = {"summary": Kind(SUMMARY_MODELS, SUMMARY_TYPES, "run_summaries", PARSERS["summary"].key),
         "system": Kind({None: SystemDescription}, SYSTEM_TYPES, "systems", PARSERS["system"].key)}
FOUND = ("loaded", "unchanged", "quarantined", "unrecognized")  # statuses of a file that is there






@dataclass
class TreeOutcome:
    """What one tree ingest did, per status, and the one-line problems."""
    counts: dict[str, int]
    problems: list[str]
    seconds: float = 0.0
    rounds: list[str] = field(default_factory=list)   # the rounds whose files were asked for
    failures: list[str] = field(default_factory=list)  # the problems of files that failed (the run's exit 1)
    rebuilt: list = field(default_factory=list)       # rounds with no table, rebuilt from their tree (run.rebuild_round)
    unnamed: int = 0                                  # result rows that name no run folder (no Location)

    def add(self, other: "TreeOutcome") -> "TreeOutcome":
        """This outcome and another's files, problems and rounds, as one run's."""
        for status, n in other.counts.items():
            self.counts[status] = self.counts.get(status, 0) + n
        self.problems += other.problems
        self.failures += other.failures
        self.rounds = sorted(set(self.rounds) | set(other.rounds), key=round_sort_key)
        return self

    @property
    def files(self) -> int:
        return sum(self.counts.values())

    @property
    def failed(self) -> bool:
        return self.counts.get("failed", 0) > 0

    @property
    def found_nothing(self) -> bool:
        """Files were asked for and not one of them is at the source."""
        return self.files > 0 and not any(self.counts.get(status) for status in FOUND)

    def by_status(self) -> pl.DataFrame:
        return pl.DataFrame({"status": list(self.counts), "files": list(self.counts.values())},
                            schema={"status": pl.String, "files": pl.Int64})


# ---------------------------------------------------------------------------------------------
# plan
























# ---------------------------------------------------------------------------------------------
# validate (every chunk's rows at once)


@dataclass
class Checked:
    """Every outcome with its final status, and the rows that passed their Pandera model."""
    outcomes: list[FileOutcome]
    summaries: pl.DataFrame
    systems: pl.DataFrame

    def of_round(self, round_name: str) -> "Checked":
        """The part of one round (checked with others: one Pandera pass for all, one load each)."""
        return Checked([o for o in self.outcomes if o.file.round == round_name],
                       self.summaries.filter(pl.col("round") == round_name),
                       self.systems.filter(pl.col("round") == round_name))


def check(outcomes: list[FileOutcome]) -> Checked:
    """Validate every parsed row at once (one Pandera pass per table and harness, not one per
    chunk): a row that fails any check quarantines its file."""
    frames = {kind: pl.concat([_validate(kind, model, [o for o in outcomes if o.status == "parsed"
                                                       and o.file.kind == kind and _harness(o) == harness])
                               for harness, model in KINDS[kind].models.items()])
              for kind in KINDS}
    return Checked(outcomes, frames["summary"], frames["system"])


def _harness(outcome: FileOutcome) -> str | None:
    return outcome.record.get("harness", LOADGEN) if outcome.file.kind == "summary" else None


def _validate(kind: str, model, candidates: list[FileOutcome]) -> pl.DataFrame:
    """The rows that pass every check of the model; the others' files become quarantined."""
    frame = pl.DataFrame([c.record for c in candidates], schema=polars_schema(KINDS[kind].types))
    reasons = row_failures(model, frame)
    for index, candidate in enumerate(candidates):
        if index in reasons:
            candidate.status, candidate.reasons = "quarantined", reasons[index]
        else:
            candidate.status, candidate.raw_text = "loaded", None
        candidate.record = None
    return frame.filter(~pl.int_range(pl.len()).is_in(list(reasons)))


def row_failures(model, frame: pl.DataFrame) -> dict[int, list[str]]:
    """{row index: every check it failed} under a Pandera model (lazy validation)."""
    failures: dict[int, list[str]] = {}
    for failure in failures_of(model, frame) if frame.height else []:
        if failure.index is None:  # a schema-level failure (a column of the wrong type): a bug
            raise RuntimeError(f"{model.__name__}: schema-level failure {failure}")
        failures.setdefault(failure.index, []).append(failure.message())
    return failures


# ---------------------------------------------------------------------------------------------
# load


def load(con, checked: Checked) -> TreeOutcome:
    """One transaction: a loaded file replaces its row; a quarantined one replaces its quarantine
    record and keeps the row loaded from the run folder's (or system's) earlier file, as a bad
    round table leaves its round as it was, the new file's fault in `quarantine` and in
    `tree_files.message`; a file that is now missing or failed keeps whatever was loaded from it
    before and is only recorded when nothing was."""
    outcomes = checked.outcomes
    if all(o.status == "unchanged" and o.fetched and o.fetched.not_modified for o in outcomes):
        return _outcome(outcomes)  # nothing to write: no transaction at all
    now = datetime.now(timezone.utc)
    kept = _rows_kept(con, [o for o in outcomes if o.status == "quarantined"])
    for o in outcomes:
        if (o.file.round, o.file.key) in kept:
            o.reasons = [*o.reasons, KEPT]
    frames = {
        "_tree_files": pl.DataFrame([_file_row(o, now) for o in outcomes if o.status != "unchanged"],
                                    schema=FILE_ROW_SCHEMA),
        "_tree_quarantine": pl.DataFrame([_quarantine_row(o) for o in outcomes
                                          if o.status == "quarantined"], schema=QUARANTINE_SCHEMA),
        "_run_summaries": checked.summaries,
        "_systems": checked.systems,
        "_tree_identities": pl.DataFrame(
            [{"round": o.file.round, "path": o.file.path, "file_identity": o.fetched.identity}
             for o in outcomes if o.status == "unchanged" and o.fetched and not o.fetched.not_modified
             and o.fetched.identity], schema={"round": pl.String, "path": pl.String, "file_identity": pl.String}),
    }
    slot = "coalesce({0}.run_path, {0}.path)"  # a run folder (whichever of its files), or a system file
    replaced = "f.status IN ('loaded', 'quarantined')"
    with db.registered(con, **frames), db.transaction(con):
        for name, kind in KINDS.items():
            con.execute(f"""DELETE FROM {kind.table} AS t USING _tree_files AS f
                            WHERE t.round = f.round AND f.kind = '{name}' AND f.status = 'loaded'
                              AND t.{kind.key} = {slot.format('f')}""")
            columns = ", ".join(frames[f"_{kind.table}"].columns)
            con.execute(f"INSERT INTO {kind.table} ({columns}) SELECT {columns} FROM _{kind.table}")
        con.execute(f"""DELETE FROM quarantine AS q USING _tree_files AS f, tree_files AS t
                        WHERE t.round = f.round AND {slot.format('t')} = {slot.format('f')} AND {replaced}
                          AND q.source_id = 'tree/' || t.round || '/' || t.path""")
        con.execute(f"""DELETE FROM quarantine AS q USING _tree_files AS f
                        WHERE q.source_id = 'tree/' || f.round || '/' || f.path AND {replaced}""")
        con.execute("INSERT INTO quarantine SELECT * FROM _tree_quarantine")
        con.execute(f"""DELETE FROM tree_files AS t USING _tree_files AS f
                        WHERE t.round = f.round AND {slot.format('t')} = {slot.format('f')}
                          AND ({replaced} OR t.status IN ('missing', 'failed', 'unrecognized'))""")
        # read again and found the same bytes (touched, copied, or first seen by this version): its
        # new identity is recorded, so the next run leaves it unopened
        con.execute("""UPDATE tree_files AS t SET file_identity = i.file_identity FROM _tree_identities AS i
                       WHERE t.round = i.round AND t.path = i.path""")
        columns = ", ".join(FILE_ROW_SCHEMA)
        con.execute(f"""INSERT INTO tree_files ({columns}) SELECT {columns} FROM _tree_files AS f
                        WHERE NOT EXISTS (SELECT 1 FROM tree_files AS t
                                          WHERE t.round = f.round AND {slot.format('t')} = {slot.format('f')})""")
    return _outcome(outcomes)


def _outcome(outcomes: list[FileOutcome]) -> TreeOutcome:
    counts: dict[str, int] = {}
    for o in outcomes:
        counts[o.status] = counts.get(o.status, 0) + 1
    said = {o.file.location: f"{o.file.location}: {o.status}: {'; '.join(o.reasons)}"
            for o in outcomes if o.status in ("quarantined", "failed")}
    failed = {o.file.location for o in outcomes if o.status == "failed"}
    return TreeOutcome(counts, list(said.values()), rounds=sorted({o.file.round for o in outcomes}, key=round_sort_key),
                       failures=[line for location, line in said.items() if location in failed])


KEPT = "the row loaded from its earlier file is kept"


def _rows_kept(con, quarantined: list[FileOutcome]) -> set[tuple[str, str]]:
    """(round, key) of the quarantined files whose run folder or system already has a row: it stays."""
    kept = set()
    for name, kind in KINDS.items():
        keys = [[o.file.round, o.file.key] for o in quarantined if o.file.kind == name]
        if keys:
            kept |= set(con.execute(f"SELECT round, {kind.key} FROM {kind.table} "
                                    f"WHERE list_contains(?, [round, {kind.key}])", [keys]).fetchall())
    return kept


FILE_ROW_SCHEMA = {
    "round": pl.String, "path": pl.String, "kind": pl.String, "url": pl.String, "status": pl.String,
    "sha256": pl.String, "bytes": pl.Int64, "etag": pl.String, "last_modified": pl.String,
    "fetched_at": pl.Datetime("us", "UTC"), "loaded_at": pl.Datetime("us", "UTC"), "message": pl.String,
    "run_path": pl.String, "files_held": pl.List(pl.String), "file_identity": pl.String,
}
QUARANTINE_SCHEMA = {"round": pl.String, "source_id": pl.String, "record_no": pl.Int64,
                     "raw_record": pl.String, "reasons": pl.List(pl.String)}


def _file_row(o: FileOutcome, now: datetime) -> dict:
    f = o.fetched
    return {"round": o.file.round, "path": o.file.path, "kind": o.file.kind, "url": o.file.location,
            "status": o.status, "sha256": f.sha256 if f else None, "bytes": f.size if f else None,
            "etag": f.etag if f else None, "last_modified": f.last_modified if f else None,
            "fetched_at": f.fetched_at if f else now, "loaded_at": now,
            "message": "; ".join(o.reasons) or None, "run_path": o.file.run_path, "files_held": o.files_held,
            "file_identity": f.identity if f else None}


def _quarantine_row(o: FileOutcome) -> dict:
    raw = json.dumps({"path": o.file.path, "url": o.file.location, "text": o.raw_text}, ensure_ascii=False)
    return {"round": o.file.round, "source_id": o.file.source_id, "record_no": 0, "raw_record": raw,
            "reasons": [reason for reason in o.reasons if reason != KEPT]}


# ---------------------------------------------------------------------------------------------
# a run that already holds the warehouse (the watch, after loading new rounds' tables)




def tree_line(round_name: str, outcome: TreeOutcome) -> str:
    counts = ", ".join(f"{n:,} {status}" for status, n in sorted(outcome.counts.items()))
    failed = f"; {len(outcome.failures)} failed: {outcome.failures[0]}" if outcome.failures else ""
    return f"{round_name}: {outcome.files:,} submission-tree files asked for: {counts or 'none'}{failed}"


# ---------------------------------------------------------------------------------------------
# a round rebuilt from its tree

RESULT_SCHEMA = {
    "round": pl.String, "division": pl.String, "availability": pl.String, "suite": pl.String,
    "submitter": pl.String, "system": pl.String, "platform": pl.String, "result_id": pl.String,
    "entry_id": pl.String, "model": pl.String, "used_model": pl.String, "scenario": pl.String,
    "metric": pl.String, "value": pl.Float64, "units": pl.String, "higher_is_better": pl.Boolean,
    "accelerator_raw": pl.String, "accelerators_per_node": pl.Int64, "nodes": pl.Int64,
    "total_accelerators": pl.Int64, "accelerator_count_disagrees": pl.Boolean, "processor": pl.String,
    "software": pl.String, "weight_data_types": pl.String, "accuracy": pl.String,
    "tokens_per_sample": pl.Float64, "inferred": pl.Boolean, "verification": pl.String, "extra": pl.String,
    "source_id": pl.String, "record_no": pl.Int64, "location": pl.String, "processors_per_node": pl.Int64,
    "notes": pl.String,
}
VERIFICATION = {"available": "verified", "preview": "preview", "rdi": "rdi"}


def source_id(round_name: str) -> str:
    return f"{SOURCE_PREFIX}/{round_name}"


def power_source_id(round_name: str) -> str:
    """The quarantine's source_id of a round's power figures not computed: 'rebuilt/<round>/power'."""
    return f"{source_id(round_name)}/power"


def verification(division: str | None, availability: str | None) -> str:
    """As for a published table's row (warehouse/ingest/parse.py verification_label): the trees are
    the submissions MLCommons reviewed and published."""
    if division in ("open", "network"):
        return "open"
    return VERIFICATION.get(availability, "unverified") if division == "closed" else "unverified"


def frames(rebuilt: Rebuilt) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rows that pass CanonicalResult, quarantine records): a row that fails a check is quarantined
    with its summary's path."""
    return frames_together([rebuilt])[0]


def frames_together(rebuilts: list[Rebuilt]) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    """frames of several rounds, their rows validated together: one CanonicalResult pass for all."""
    rows = [{**r, "source_id": source_id(rebuilt.round), "verification": verification(r["division"], r["availability"])}
            for rebuilt in rebuilts for r in rebuilt.rows]
    frame = pl.DataFrame(rows, schema=RESULT_SCHEMA)
    failed: dict[int, list[str]] = {}
    for failure in failures_of(CanonicalResult, frame) if frame.height else []:
        failed.setdefault(failure.index if failure.index is not None else -1, []).append(failure.message())
    if -1 in failed:
        raise RuntimeError(f"rebuilt rows of {', '.join(r.round for r in rebuilts)}: schema-level failure {failed[-1]}")
    frame = frame.with_columns(_failed=pl.int_range(pl.len()).is_in(list(failed)))
    together, start = [], 0
    for rebuilt in rebuilts:
        end = start + len(rebuilt.rows)
        good = frame.slice(start, end - start).filter(~pl.col("_failed")).drop("_failed")
        quarantine = [{"path": q["path"], "reasons": q["reasons"], "text": q["text"]} for q in rebuilt.quarantined]
        quarantine += [{"path": rows[i]["location"], "reasons": reasons, "text": json.dumps(rows[i], default=str)}
                       for i, reasons in sorted(failed.items()) if start <= i < end]
        records = pl.DataFrame(
            [{"record_no": good.height + n, "raw_record": json.dumps({"path": q["path"], "text": q["text"]},
                                                                      ensure_ascii=False), "reasons": q["reasons"]}
             for n, q in enumerate(quarantine)],
            schema={"record_no": pl.Int64, "raw_record": pl.String, "reasons": pl.List(pl.String)})
        together.append((good, records))
        start = end
    return together


def load_rebuilt(con, rebuilt: Rebuilt, tree_identity: str | None = None,
                 validated: tuple[pl.DataFrame, pl.DataFrame] | None = None) -> db.SourceRecord:
    """Replace the round's rebuilt rows and quarantine records in one transaction; `tree_identity`
    (rebuilding.tree_digest of what was listed) is recorded with them. `validated`: frames(rebuilt)."""
    good, quarantine = validated or frames(rebuilt)
    source = db.SourceRecord(
        source_id=source_id(rebuilt.round), round=rebuilt.round, origin=ORIGIN, url=rebuilt.root,
        file_name="submission tree", format=FORMAT, sha256=rebuilt.sha256, bytes=rebuilt.bytes, etag=None,
        last_modified=None, fetched_at=datetime.now(timezone.utc), rows_read=good.height + quarantine.height,
        rows_loaded=good.height, rows_quarantined=quarantine.height, unknown_columns=[], tree_identity=tree_identity)
    db.replace_source(con, source, good.select(RESULT_COLUMNS), quarantine)
    return source


def power_frames_together(rebuilts: list[Rebuilt]) -> list[tuple[pl.DataFrame, pl.DataFrame]]:
    """Each round's power figures that pass PowerReading (one validation pass for all rounds), and its
    quarantine records: a run whose figure could not be computed, or failed a check, with its run
    folder, its files (two; with the timezone files in a round of local times), their hashes and
    every reason."""
    rows = [{**r, "source_id": source_id(rebuilt.round)} for rebuilt in rebuilts for r in rebuilt.power_rows]
    frame = pl.DataFrame(rows, schema=polars_types(PowerReading))
    failed: dict[int, list[str]] = {}
    for failure in failures_of(PowerReading, frame) if frame.height else []:
        failed.setdefault(failure.index if failure.index is not None else -1, []).append(failure.message())
    if -1 in failed:
        raise RuntimeError(f"power figures of {', '.join(r.round for r in rebuilts)}: schema-level failure {failed[-1]}")
    together, start = [], 0
    lineage = ("run_path", "spl_path", "spl_sha256", "detail_path", "detail_sha256")
    for rebuilt in rebuilts:
        end = start + len(rebuilt.power_rows)
        bad = [i - start for i in failed if start <= i < end]
        good = frame.slice(start, end - start).filter(~pl.int_range(pl.len()).is_in(bad))
        records = [({k: v for k, v in q.items() if k != "reasons"}, q["reasons"]) for q in rebuilt.power_quarantined]
        records += [({k: rows[start + i][k] for k in lineage}, failed[start + i]) for i in sorted(bad)]
        quarantine = pl.DataFrame(
            [{"round": rebuilt.round, "source_id": power_source_id(rebuilt.round), "record_no": n,
              "raw_record": json.dumps(record, ensure_ascii=False), "reasons": reasons}
             for n, (record, reasons) in enumerate(records)], schema=QUARANTINE_SCHEMA)
        together.append((good, quarantine))
        start = end
    return together


READ_SCHEMA = {"round": pl.String, "path": pl.String, "kind": pl.String, "file_identity": pl.String, "sha256": pl.String,
               "fields": pl.String, "reasons": pl.List(pl.String), "text": pl.String}


def load_round(con, rebuilt: Rebuilt, validated: tuple[pl.DataFrame, pl.DataFrame], checked: Checked,
               reads: list[dict], tree_identity: str | None,
               power: tuple[pl.DataFrame, pl.DataFrame]) -> tuple[db.SourceRecord, TreeOutcome]:
    """A round rebuilt from its tree, in one transaction: its result rows in place of its earlier
    rebuild, the run summaries and system descriptions behind them (`load`), its power figures and
    their quarantine records (`power`: power_frames_together; replaced whole), and what was read of
    each file (tree_reads, replaced whole), or nothing of it."""
    readings, power_quarantine = power
    with db.registered(con, _tree_reads=pl.DataFrame(reads, schema=READ_SCHEMA), _power_readings=readings,
                       _power_quarantine=power_quarantine), \
            db.transaction(con, f"the rebuild of {rebuilt.round}"):
        source = load_rebuilt(con, rebuilt, tree_identity, validated)
        outcome = load(con, checked)
        con.execute("DELETE FROM tree_reads WHERE round = ?", [rebuilt.round])
        con.execute(f"INSERT INTO tree_reads ({', '.join(READ_SCHEMA)}) SELECT {', '.join(READ_SCHEMA)} FROM _tree_reads")
        con.execute("DELETE FROM power_readings WHERE round = ?", [rebuilt.round])
        columns = ", ".join(readings.columns)
        con.execute(f"INSERT INTO power_readings ({columns}) SELECT {columns} FROM _power_readings")
        con.execute("DELETE FROM quarantine WHERE source_id = ?", [power_source_id(rebuilt.round)])
        con.execute("INSERT INTO quarantine SELECT * FROM _power_quarantine")
    return source, outcome


# ---------------------------------------------------------------------------------------------
# the rounds with no table, rebuilt and loaded (flows/trees.py runs this before the tree ingest)






