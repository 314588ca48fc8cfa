"""The folders of a warehouse's clones (trees/ beside its file): which is the warehouse's, and how it
makes, replaces and removes them without touching anything it did not make.

A folder the warehouse made for a round's clone holds MARKER, a small JSON file (the round, the URL
git was given, which holds no credentials, and when); a folder without it, or a link, is someone
else's and is never removed or written into. The round's clone is `<repository>` in trees/, or
`<repository>.warehouse-clone` when a folder of someone else's holds the first name (clone_place).
Temporary folders (`.<repository>.clone-*`, `.<repository>.old-*`) are marked too, so what a stopped
run left is removed, and nothing of that shape the warehouse did not make. trees/cloning.py fills
them with git."""
from __future__ import annotations

import json
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from warehouse.errors import ExpectedFailure

CLONES_FOLDER = "trees"                     # beside the warehouse file
MARKER = ".mlperf-warehouse-clone"          # in every folder the warehouse made for a clone
MADE_BY = "mlperf-warehouse"
BESIDE = ".warehouse-clone"                 # the clone's folder when its own name holds a folder of someone else's
MARKER_BYTES = 4096


class FolderTaken(ExpectedFailure):
    """No folder for a round's clone: both of its names hold folders the warehouse did not make, or
    one appeared during the clone."""


def clones_folder(db_file: str) -> Path:
    """Where a warehouse keeps its clones: trees/ beside its file."""
    return Path(db_file).resolve().parent / CLONES_FOLDER


def clone_place(cache: Path, round) -> tuple[Path, str | None]:
    """The round's clone's folder: `<repository>` in `cache`, or `<repository>.warehouse-clone`, the
    first the warehouse made (marked), else the first with nothing there; and a note when a folder of
    someone else's is left as it is. FolderTaken when both hold one."""
    own, beside = cache / round.repository, cache / f"{round.repository}{BESIDE}"
    ours = [place for place in (own, beside) if made_here(place, round)]
    free = [place for place in (own, beside) if not taken(place)]
    if not ours and not free:
        raise FolderTaken(f"{own} and {beside} hold folders this warehouse did not make (no {MARKER} of "
                          f"{round.name} in them); both are left as they are: move one of them away, or read "
                          f"yours with --source {cache}")
    place = (ours or free)[0]
    if place == own or not taken(own):
        return place, None
    return place, (f"{own} is not a clone this warehouse made (no {MARKER} of {round.name} in it): left as it "
                   f"is; {round.name}'s clone is {place}")


def made_here(folder: Path, round) -> bool:
    """`folder` is a folder (not a link) holding the warehouse's MARKER for `round`."""
    marker = folder / MARKER
    if folder.is_symlink() or not folder.is_dir() or marker.is_symlink() or not marker.is_file():
        return False
    try:
        with open(marker, "rb") as held:
            recorded = json.loads(held.read(MARKER_BYTES))
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and recorded.get("made_by") == MADE_BY and recorded.get("round") == round.name


def mark(folder: Path, round, url: str) -> None:
    """MARKER written in `folder`: the round, the URL (git's: no credentials), when."""
    record = {"made_by": MADE_BY, "round": round.name, "url": url,
              "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
              "what": "a sparse clone `mlperf-wh trees --git` made and replaces whole when it must; "
                      "a folder without this file is never removed or written into"}
    (folder / MARKER).write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")


def marked_temporary(cache: Path, round, kind: str, url: str) -> Path:
    """A new folder `.<repository>.<kind>-*` in `cache`, marked: if the run stops before it is
    removed, a later run knows it as the warehouse's (remove_leftovers)."""
    folder = Path(tempfile.mkdtemp(prefix=f".{round.repository}.{kind}-", dir=cache))
    mark(folder, round, url)
    return folder


def taken(place: Path) -> bool:
    return place.exists() or place.is_symlink()


def put_in_place(fresh: Path, place: Path, round) -> None:
    """`fresh` renamed to `place`; the warehouse's clone there before (not whole, or another URL's) is
    removed. A folder that appeared there meanwhile, not the warehouse's, is left as it is."""
    appeared = FolderTaken(f"{place}: something this warehouse did not make appeared there during the clone; "
                           "it is left as it is: run again")
    if taken(place):
        if not made_here(place, round):
            raise appeared
        old = marked_temporary(place.parent, round, "old", "")
        place.rename(old / place.name)
        remove_ours(old)
    try:
        place.mkdir()  # claimed: nothing came there since the look above; the rename replaces it empty
    except FileExistsError as exc:
        raise appeared from exc
    fresh.rename(place)


def remove_ours(folder: Path) -> None:
    """A folder the warehouse made, removed, its marker last: a removal stopped halfway leaves one a
    later run still knows as the warehouse's."""
    if not folder.is_dir() or folder.is_symlink():
        return
    for entry in folder.iterdir():
        if entry.name == MARKER:
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry, ignore_errors=True)
        else:
            entry.unlink(missing_ok=True)
    if any(entry.name != MARKER for entry in folder.iterdir()):
        return  # something could not be removed: still marked, a later run tries again
    (folder / MARKER).unlink(missing_ok=True)
    folder.rmdir()


def remove_leftovers(cache: Path, round) -> None:
    """Temporary folders of a run that was stopped (or killed) before it renamed or removed them:
    those the warehouse marked, never one of that shape that it did not."""
    for leftover in [*cache.glob(f".{round.repository}.clone-*"), *cache.glob(f".{round.repository}.old-*")]:
        if made_here(leftover, round):
            remove_ours(leftover)
