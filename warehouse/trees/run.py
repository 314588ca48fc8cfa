"""The tree pipeline's one entry point: every round asked for, read from its tree at the source.
A round MLCommons published no table of is rebuilt (its result rows) from its tree; the run summaries
and system descriptions behind every loaded row are loaded; the flow (flows/trees.py) and the watch
(flows/run_rounds.py) call this, and schedule only the fetch of a table round's files."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from warehouse import counts
from warehouse.identity.rounds import Round
from warehouse.ingest.fetch import FetchSettings, is_http
from warehouse.ingest.source_urls import redact
from warehouse.store import db
from warehouse.trees.fetching import fetch_chunk
from warehouse.trees.loading import check, load, load_rebuilt, source_id, tree_line
from warehouse.trees.fetching import DEFAULT_CHUNK, chunks
from warehouse.trees.planning import holds_a_tree, plan, tree_root


def read_trees_here(con, rounds: list[Round], source: str, settings: FetchSettings, workers: int = 2) -> list[str]:
    """The tree ingest of these rounds (only theirs) on the run's own connection, its chunks on a
    thread pool: one line per round for the run report. A round whose tree the source does not hold
    (a directory laid out with its table alone; a URL that has none of a sample of its files, one
    chunk spread over the round) is said so and nothing of it is recorded, so a watch over a mirror
    of tables asks a server for one chunk, not every file; the table stays loaded either way, and a file that failed is
    its round's line, never the run's failure."""
    from concurrent.futures import ThreadPoolExecutor

    lines = []
    for round in rounds:
        no_tree = f"{round.name}: no submission tree at {redact(source)}; its run summaries are not read " \
                  "(mlperf-wh trees --source DIR_OR_URL reads them from elsewhere)"
        if not is_http(source) and not holds_a_tree(tree_root(source, round)):
            lines.append(no_tree)
            continue
        files, _ = plan(con, [round], source)
        sample = files[::max(1, -(-len(files) // DEFAULT_CHUNK))] if is_http(source) else []  # at most a chunk
        outcomes = fetch_chunk(sample, settings)
        if sample and all(o.status == "missing" for o in outcomes):
            lines.append(no_tree)
            continue
        sampled = {id(file) for file in sample}
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            outcomes += [o for chunk in pool.map(lambda c: fetch_chunk(c, settings),
                                                 chunks([f for f in files if id(f) not in sampled])) for o in chunk]
        lines.append(tree_line(round.name, load(con, check(outcomes))))
    return lines


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
    from warehouse.trees.planning import holds_a_tree, tree_root
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


