"""The one way a submission tree's folders are listed, `TreeFolder`, and what a round's tree holds
(`list_folder`, `submitter_folders`): its run summaries and system descriptions, a power run's two
power files, the run folders that hold no summary, and the symbolic links met on the way.

A listing keeps reading.py's rule for names: a folder is entered only when it is a folder (opened
as read_tree_file opens them, with O_NOFOLLOW from the root down), and a symbolic link, to a folder
or a file, in the tree or out of it, is named as itself (its path in the tree) and never followed,
listed or stat'ed through. A link to /usr is one link, not /usr's folders; a loop is one link."""
from __future__ import annotations

import os
import stat
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from warehouse.ingest.fetch import FetchError
from warehouse.trees.parsing import SUMMARY_FILE
from warehouse.trees.parsing_power import DETAIL_FILE, POWER_FOLDER, SPL_FILE, TIMEZONE_FILES
from warehouse.trees.reading import RefusedTreeFile, _open_folder, _open_root, folder_identity_of

RUN_FOLDER = ("performance", "run_1")
LINK_NOTE = "it is a symbolic link, never followed: a tree is listed only through folders inside it"
WALKED_AT_MOST = 10_000  # entries a walk below a folder looks at (a hostile tree may hold millions)
WALKED_DEPTH = 16         # folders below it a walk enters (a run folder's files are two or three deep)


class Entries:
    """The names in one folder of a tree, by what each is (lstat: no link followed)."""

    def __init__(self) -> None:
        self.folders: list[str] = []
        self.files: list[str] = []      # regular files and anything else that is neither folder nor link
        self.links: list[str] = []

    def add(self, entry: os.DirEntry) -> None:
        if entry.is_symlink():
            self.links.append(entry.name)
        elif entry.is_dir(follow_symlinks=False):
            self.folders.append(entry.name)
        else:
            self.files.append(entry.name)

    def sort(self) -> "Entries":
        for names in (self.folders, self.files, self.links):
            names.sort()
        return self


class TreeFolder:
    """An open folder of a tree (`path` relative to the root), reached only through folders: the
    root, then each part opened with O_NOFOLLOW relative to the one above. A context manager."""

    def __init__(self, descriptor: int, label: str, path: str) -> None:
        self.descriptor, self.label, self.path = descriptor, label, path

    @classmethod
    def open(cls, root: str | Path, relative: str = "") -> "TreeFolder":
        """NotFound when it is not there or not a folder; RefusedTreeFile when a part of the way
        is a symbolic link."""
        label = f"{root}/{relative}" if relative else str(root)
        parts = relative.split("/") if relative else []
        if any(part in ("", ".", "..") for part in parts):
            raise RefusedTreeFile(f"{label}: not a plain path inside the tree")
        folder = cls(_open_root(root, label), str(root), "")
        for part in parts:
            with folder:
                folder = folder.enter(part)
        return folder

    def enter(self, name: str) -> "TreeFolder":
        path = f"{self.path}/{name}" if self.path else name
        return TreeFolder(_open_folder(self.descriptor, name, f"{self.label}/{name}", path),
                          f"{self.label}/{name}", path)

    def entries(self) -> Entries:
        entries = Entries()
        with os.scandir(self.descriptor) as found:
            for entry in found:
                entries.add(entry)
        return entries.sort()

    def __enter__(self) -> "TreeFolder":
        return self

    def __exit__(self, *exc) -> None:
        os.close(self.descriptor)


def walk_tree_folder(root: str | Path, relative: str, at_most: int = WALKED_AT_MOST) -> tuple[list[str], list[str], bool]:
    """Every file and every link below the folder `relative`, as paths relative to it, sorted,
    never through a link: (files, links, complete); `complete` is False when the walk stopped after
    `at_most` entries or left folders deeper than WALKED_DEPTH unlisted. A loop, an iteration: no
    recursion, and one folder open at a time."""
    files, links, pending, seen, complete = [], [], [""], 0, True
    while pending and seen <= at_most:
        below = pending.pop()
        try:
            folder = TreeFolder.open(root, f"{relative}/{below}" if below else relative)
        except RefusedTreeFile:  # became a link since it was listed
            links.append(below)
            continue
        except FetchError:  # removed since it was listed
            continue
        with folder:
            entries = folder.entries()
        prefix = f"{below}/" if below else ""
        seen += len(entries.folders) + len(entries.files) + len(entries.links)
        files += [prefix + name for name in entries.files]
        links += [prefix + name for name in entries.links]
        deep_enough = below.count("/") + 1 >= WALKED_DEPTH if below else False
        complete = complete and not (deep_enough and entries.folders)
        pending += [] if deep_enough else [prefix + name for name in entries.folders]
    return sorted(files), sorted(links), complete and not pending


@dataclass
class Listing:
    """A tree's files: run summaries and system descriptions (paths relative to the root), a power
    run's spl.txt and its mlperf_log_detail.txt (and, with `timezones`, for a round of local times,
    its performance/power/client.json and server.json), the run folders that hold no summary (path,
    what is there), and the symbolic links met on the way (never followed: each is one quarantine
    record naming its path in the tree)."""
    summaries: list[str] = field(default_factory=list)
    systems: list[str] = field(default_factory=list)
    power: list[str] = field(default_factory=list)
    strays: list[tuple[str, str]] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    folders: list[tuple[str, str | None]] = field(default_factory=list)   # every folder listed, its identity
    # called with the open folder, the name and the tree path of each file listed, while its folder
    # is open: a reader that reads it there opens no folder again (rebuilding.read_part)
    visit: Callable[[TreeFolder, str, str], None] | None = field(default=None, repr=False, compare=False)
    timezones: bool = False

    def found(self, kept: list[str], folder: TreeFolder, name: str) -> str:
        path = _inside(folder, name)
        kept.append(path)
        if self.visit is not None:
            self.visit(folder, name, path)
        return path

    @property
    def files(self) -> list[str]:
        return self.systems + self.summaries + self.power


def _entered(folder: TreeFolder, name: str, listing: Listing) -> TreeFolder | None:
    """The folder `name` in `folder`, or None when it is not there, or became a link since it was
    listed (recorded as one)."""
    try:
        return folder.enter(name)
    except RefusedTreeFile:
        listing.links.append(_inside(folder, name))
    except FetchError:
        pass
    return None


def _entries(folder: TreeFolder, listing: Listing) -> Entries:
    """The folder's entries, its links recorded in the listing, and its identity when listed."""
    entries = folder.entries()
    listing.links += [_inside(folder, name) for name in entries.links]
    listing.folders.append((folder.path, folder_identity_of(os.fstat(folder.descriptor))))
    return entries


def _inside(folder: TreeFolder, name: str) -> str:
    return f"{folder.path}/{name}" if folder.path else name


def submitter_folders(root: Path, seen: Listing | None = None) -> list[str]:
    """Every <division>/<submitter> folder of the tree: the unit of work (a submitter's summaries and
    the system descriptions they name are in one folder). A link at either level is a unit of its
    own, which list_folder records and never enters. `seen` records the root's and the divisions'
    identities (a link met here is recorded by list_folder, not in it)."""
    seen = seen or Listing()
    swapped = Listing()  # a division that became a link since it was listed
    with TreeFolder.open(root) as top:
        entries = _entries(top, seen)
        found = list(entries.links)
        for division in entries.folders:
            if (folder := _entered(top, division, swapped)) is not None:
                with folder:
                    below = _entries(folder, seen)
                found += [f"{division}/{name}" for name in below.folders + below.links]
    return found + swapped.links


def list_folder(root: Path, here: str, listing: Listing | None = None) -> Listing:
    """A submitter folder's systems/*.json and every scenario folder's
    performance/run_1/mlperf_log_summary.txt; a scenario folder without one is a stray; a link
    anywhere on the way is recorded and never followed (`here` itself may be one)."""
    listing = listing or Listing()
    try:
        submitter = TreeFolder.open(root, here)
    except RefusedTreeFile:
        listing.links.append(here)
        return listing
    except FetchError:
        return listing
    with submitter:
        entries = _entries(submitter, listing)
        if "systems" in entries.folders and (systems := _entered(submitter, "systems", listing)):
            with systems:
                for name in _entries(systems, listing).files:
                    if name.endswith(".json"):
                        listing.found(listing.systems, systems, name)
        if "results" in entries.folders and (results := _entered(submitter, "results", listing)):
            with results:
                _list_results(root, results, listing)
    return listing


def list_tree(root: Path) -> Listing:
    """list_folder of every submitter folder."""
    listing = Listing()
    for here in submitter_folders(root):
        list_folder(root, here, listing)
    return listing


def _list_results(root: Path, results: TreeFolder, listing: Listing) -> None:
    """<platform>/<benchmark>/<scenario> below results/, each scenario folder's run."""
    for platform in _folders_below(results, listing):
        with platform:
            for benchmark in _folders_below(platform, listing):
                with benchmark:
                    for scenario in _folders_below(benchmark, listing):
                        with scenario:
                            _list_scenario(root, scenario, listing)


def _folders_below(folder: TreeFolder, listing: Listing):
    for name in _entries(folder, listing).folders:
        if (below := _entered(folder, name, listing)) is not None:
            yield below


def _list_scenario(root: Path, scenario: TreeFolder, listing: Listing) -> None:
    """Its run summary; nothing more when a link stands on the way to it (the link is recorded);
    else the folder is a stray, with what it holds."""
    if _run_summary(scenario, listing) is None:
        _list_stray(root, scenario.path, listing)
LINKED = "a link on the way"


def _run_summary(scenario: TreeFolder, listing: Listing) -> str | None:
    """performance/run_1/mlperf_log_summary.txt of the scenario folder, found (listing.found, its run
    folder still open): its path (a link in its place too: reading it refuses it, naming the link),
    LINKED, or None when it is not there. The scenario folder is listed (its links recorded, a stray
    told); below it only the one name on the way is looked up (an lstat), as a reader that globs the
    literal path does, and in run_1/ the power files (_power_files): what else performance/ and run_1/
    hold is never read, nor listed (two folder listings in three, most of a cold pass's waits on the
    disk)."""
    with ExitStack() as opened:
        listed, folder, performance = _entries(scenario, listing), scenario, None
        for part in RUN_FOLDER:
            kind = _listed_kind(listed, part) if folder is scenario else _kind_by_lstat(folder, part)
            if kind == "link":
                if folder is not scenario:
                    listing.links.append(_inside(folder, part))
                return LINKED
            if kind != "folder" or (below := _entered(folder, part, listing)) is None:
                return None
            performance, folder = folder, opened.enter_context(below)
            listing.folders.append((folder.path, folder_identity_of(os.fstat(folder.descriptor))))
        if _kind_by_lstat(folder, SUMMARY_FILE) in (None, "folder"):
            return None
        found = listing.found(listing.summaries, folder, SUMMARY_FILE)
        _power_files(performance, folder, listing)
        return found


def _power_files(performance: TreeFolder, run: TreeFolder, listing: Listing) -> None:
    """A run measured with a power analyzer: its spl.txt and, beside it, the detail log that holds the
    run's power window (found in that order: the sample log is read against the window), and in a
    round of local times the power folder's timezone files before them. The detail log of a run
    without spl.txt is not looked at (every run has one; only a power run's is read). A link in place
    of any is recorded, never followed."""
    spl = _kind_by_lstat(run, SPL_FILE)
    if spl in (None, "folder"):
        return
    if spl == "link":
        listing.links.append(_inside(run, SPL_FILE))
        return
    _found_file(run, DETAIL_FILE, listing)
    if listing.timezones:
        _timezone_files(performance, listing)
    listing.found(listing.power, run, SPL_FILE)


def _timezone_files(performance: TreeFolder, listing: Listing) -> None:
    """performance/power/client.json and server.json, the power folder's identity recorded (a file
    added to it later changes its mtime); a link on the way recorded, never followed."""
    name = POWER_FOLDER.rsplit("/", 1)[-1]
    kind = _kind_by_lstat(performance, name)
    if kind == "link":
        listing.links.append(_inside(performance, name))
    if kind != "folder" or (power := _entered(performance, name, listing)) is None:
        return
    with power:
        listing.folders.append((power.path, folder_identity_of(os.fstat(power.descriptor))))
        for zone in TIMEZONE_FILES:
            _found_file(power, zone, listing)


def _found_file(folder: TreeFolder, name: str, listing: Listing) -> None:
    """A power file found (listing.power) when it is one; a link in its place recorded, never followed."""
    kind = _kind_by_lstat(folder, name)
    if kind == "link":
        listing.links.append(_inside(folder, name))
    elif kind == "file":
        listing.found(listing.power, folder, name)


def _listed_kind(entries: Entries, name: str) -> str | None:
    if name in entries.links:
        return "link"
    return "folder" if name in entries.folders else "file" if name in entries.files else None


def _kind_by_lstat(folder: TreeFolder, name: str) -> str | None:
    """What `name` is in the open folder, by its lstat (no link followed): link, folder, file (a
    regular file or anything else: reading refuses what is not a regular file), or None (not there)."""
    try:
        mode = os.stat(name, dir_fd=folder.descriptor, follow_symlinks=False).st_mode
    except FileNotFoundError:
        return None
    except OSError:
        return "file"   # there, but not to be looked at: reading it says why
    return "link" if stat.S_ISLNK(mode) else "folder" if stat.S_ISDIR(mode) else "file"


def _list_stray(root: Path, folder: str, listing: Listing) -> None:
    files, links, complete = walk_tree_folder(root, folder, at_most=STRAY_WALKED_AT_MOST)
    listing.links += [path for path in (f"{folder}/{link}" for link in links) if path not in listing.links]
    more = len(files) - STRAY_NAMED
    held = (", ".join(files[:STRAY_NAMED]) or "nothing") + (f", and {more} more" if more > 0 else "")
    listing.strays.append((folder, held + ("" if complete else f" (the first {STRAY_WALKED_AT_MOST} entries)")))
STRAY_NAMED = 20           # files of a stray run folder named in its quarantine reason
STRAY_WALKED_AT_MOST = 1000


