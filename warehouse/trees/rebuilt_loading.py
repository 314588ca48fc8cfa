"""Rows rebuilt from a submission tree (trees/rebuilding.py) validated and loaded into `results`, as their
own source: source_id 'rebuilt/<round>', sources.origin 'tree', format 'submission_tree', url the
tree's root. They replace the round's earlier rebuild whole, in one transaction; every quarantined
file is a quarantine record naming its path (raw_record: path and text; reasons).

Only a round MLCommons published no table of is loaded this way (the registry lists no file for
it): a round with a table is the table's, and its rebuild is only compared with it
(trees/reconstruction.py)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import polars as pl

from schemas.failures import failures_of
from schemas.results import CanonicalResult
from warehouse import counts
from warehouse.trees.rebuilding import FORMAT, ORIGIN, SOURCE_PREFIX, Rebuilt
from warehouse.store import db
from warehouse.store.db import RESULT_COLUMNS

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


def verification(division: str | None, availability: str | None) -> str:
    """As for a published table's row (warehouse/ingest/parse.py verification_label): the trees are
    the submissions MLCommons reviewed and published."""
    if division in ("open", "network"):
        return "open"
    return VERIFICATION.get(availability, "unverified") if division == "closed" else "unverified"


def frames(rebuilt: Rebuilt) -> tuple[pl.DataFrame, pl.DataFrame]:
    """(rows that pass CanonicalResult, quarantine records): a row that fails a check is quarantined
    with its summary's path."""
    sid = source_id(rebuilt.round)
    rows = [{**r, "source_id": sid, "verification": verification(r["division"], r["availability"])}
            for r in rebuilt.rows]
    frame = pl.DataFrame(rows, schema=RESULT_SCHEMA)
    failed: dict[int, list[str]] = {}
    for failure in failures_of(CanonicalResult, frame) if frame.height else []:
        failed.setdefault(failure.index if failure.index is not None else -1, []).append(failure.message())
    if -1 in failed:
        raise RuntimeError(f"rebuilt rows of {rebuilt.round}: schema-level failure {failed[-1]}")
    quarantine = [{"path": q["path"], "reasons": q["reasons"], "text": q["text"]} for q in rebuilt.quarantined]
    quarantine += [{"path": rows[i]["location"], "reasons": reasons, "text": json.dumps(rows[i], default=str)}
                   for i, reasons in sorted(failed.items())]
    good = frame.filter(~pl.int_range(pl.len()).is_in(list(failed)))
    records = pl.DataFrame(
        [{"record_no": good.height + n, "raw_record": json.dumps({"path": q["path"], "text": q["text"]},
                                                                  ensure_ascii=False), "reasons": q["reasons"]}
         for n, q in enumerate(quarantine)],
        schema={"record_no": pl.Int64, "raw_record": pl.String, "reasons": pl.List(pl.String)})
    return good, records


def load_rebuilt(con, rebuilt: Rebuilt, tree_identity: str | None = None) -> db.SourceRecord:
    """Replace the round's rebuilt rows and quarantine records in one transaction; `tree_identity`
    (rebuilding.tree_identity, taken before the files were read) is recorded with them."""
    good, quarantine = frames(rebuilt)
    source = db.SourceRecord(
        source_id=source_id(rebuilt.round), round=rebuilt.round, origin=ORIGIN, url=rebuilt.root,
        file_name="submission tree", format=FORMAT, sha256=rebuilt.sha256, bytes=rebuilt.bytes, etag=None,
        last_modified=None, fetched_at=datetime.now(timezone.utc), rows_read=good.height + quarantine.height,
        rows_loaded=good.height, rows_quarantined=quarantine.height, unknown_columns=[], tree_identity=tree_identity)
    db.replace_source(con, source, good.select(RESULT_COLUMNS), quarantine)
    return source


# ---------------------------------------------------------------------------------------------
# the rounds with no table, rebuilt and loaded (flows/trees.py runs this before the tree ingest)


@dataclass
class RoundRebuilt:
    """One round rebuilt from its tree and loaded, or why not (`missing`: no tree of it at the source)."""
    round: str
    root: str
    rows: int = 0
    quarantined: int = 0
    files: int = 0
    missing: str | None = None
    unchanged: bool = False    # every file as at the last rebuild: nothing read, nothing written

    def line(self) -> str:
        if self.missing:
            return f"{self.round}: {self.missing}"
        if self.unchanged:
            return (f"{self.round}: unchanged since its last rebuild: {self.files} files of its submission tree "
                    f"({self.root}) listed, none read; its {self.rows} result rows and {self.quarantined} "
                    "quarantined kept")
        return (f"{self.round}: {self.rows} result rows rebuilt from {self.files} files of its submission tree "
                f"({self.root}); {self.quarantined} quarantined (source_id {source_id(self.round)})")


def rebuild_rounds(rounds, source: str, db_file: str, workers: int = 2, dask_address: str | None = None,
                   git: str | None = None, force: bool = False) -> list[RoundRebuilt]:
    """Every round asked for that MLCommons published no table of: its tree found at the source (a
    directory laid out as the trees are), or cloned sparsely from `git` (trees/cloning.py), rebuilt
    and loaded in place of its earlier rebuild; unless its tree is as at that rebuild
    (rebuilding.tree_identity) and not `force`. A clone is kept beside the warehouse file, in trees/."""
    from warehouse.trees.ingesting import holds_a_tree, tree_root
    from warehouse.identity.reference import load_reference
    from warehouse.trees.rebuilding import rebuild_tree, rules_for, tree_identity
    from warehouse.ingest.source_urls import local_path
    done, to_rebuild = [], [r for r in rounds if not r.has_table]
    reference = load_reference() if to_rebuild else None
    last_rebuilds = _last_rebuilds(db_file, [r.name for r in to_rebuild]) if to_rebuild else {}
    for round in to_rebuild:
        counts.counted(len(done), len(to_rebuild), "rounds rebuilt")
        left_out: tuple[tuple[str, str], ...] = ()
        if git:
            from warehouse.trees.cloning import clone_round
            cloned = clone_round(git, round, Path(db_file).resolve().parent / "trees")
            root, left_out = cloned.root, cloned.left_out
        else:
            root = local_path(tree_root(source, round)) if not source.startswith(("http://", "https://")) else None
        if root is None or not holds_a_tree(str(root)):
            done.append(RoundRebuilt(round.name, str(root or source), missing=(
                f"no submission tree at {root or source} (MLCommons published no table of this round: its rows "
                "come from its tree; --git URL clones only the files needed, e.g. --git https://github.com/mlcommons)")))
            continue
        identity = tree_identity(Path(root), rules_for(round.name, reference), left_out, workers)
        last = last_rebuilds.get(round.name)
        if last is not None and last[0] == identity.digest and not force:
            done.append(RoundRebuilt(round.name, str(root), last[1], last[2], identity.files, unchanged=True))
            continue
        rebuilt = rebuild_tree(round.name, Path(root), workers=workers, dask_address=dask_address, reference=reference)
        rebuilt.quarantined.extend({"path": path, "text": "", "reasons": [why]} for path, why in left_out)
        with db.connect(db_file) as con:
            loaded = load_rebuilt(con, rebuilt, identity.digest if identity.settled else None)
        done.append(RoundRebuilt(round.name, str(root), loaded.rows_loaded, loaded.rows_quarantined, rebuilt.files))
    return done


def _last_rebuilds(db_file: str, round_names: list[str]) -> dict[str, tuple]:
    """round -> (tree_identity, rows loaded, rows quarantined) of its last rebuild."""
    with db.connect(db_file) as con:
        found = con.execute("SELECT round, tree_identity, rows_loaded, rows_quarantined FROM sources "
                            "WHERE list_contains(?, source_id)", [[source_id(r) for r in round_names]]).fetchall()
    return {round_name: rest for round_name, *rest in found}
