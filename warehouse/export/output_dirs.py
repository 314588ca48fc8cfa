"""Output directories replaced whole, and only when that loses nothing.

An export or a report is written into a temporary directory beside its target and swapped in with
one atomic rename, so a reader of the target sees the previous output or the new one, never half of
one; what a killed writer left behind is removed next time.

What may be replaced: a directory that does not exist yet, an empty one, or one holding only a
previous output of the same kind that mlperf-wh can prove it wrote. The proof is the marker file
MARKER, written last into every output: JSON naming the kind ("export" or "report") and every file
written, each with its size and sha256. A directory holding anything else (a file not listed, a
listed file since changed, the warehouse file, a symlink) is refused with one line and left as it
was; the previous output is then removed file by file as listed, never as a tree, so a file that
appeared in the meantime is kept. Nothing else proves ownership: a `manifest.json` (which the BI
export writes, and anyone can) is one more file; an export from before the marker is refused like
any other directory of files.

What a killed writer left (`.<target>.partial-<pid>-*` beside the target) is removed only when its
process is gone and it holds PARTIAL_MARKER naming that directory, written first into every
temporary directory (or, killed before that claim was written whole, nothing but the claim cut short,
or nothing at all): a directory of that name made by anyone else is left alone.

Symlinks are followed: the target (or a parent) that is a symlink is resolved, the output is written
at the directory it points to and the link is left as it is.
"""
from __future__ import annotations

import ctypes
import errno
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

from warehouse.errors import ExpectedFailure
from warehouse.figures import few

MARKER = ".mlperf-wh-output.json"
PARTIAL_MARKER = ".mlperf-wh-partial.json"
SHOWN = 3  # foreign files named in the error line


class OutputDirRefused(ExpectedFailure):
    """The output directory holds something mlperf-wh did not write: nothing was written or removed."""


def resolved_target(directory: str | Path) -> Path:
    """The directory an output goes to: absolute, every symlink followed."""
    return Path(os.path.realpath(Path(directory).absolute()))


def check_replaceable(target: Path, kind: str, protected: tuple[str | Path, ...] = ()) -> None:
    """Refuse (OutputDirRefused) unless `target` (resolved) is new, empty or a previous `kind`
    output this tool can prove it wrote; `protected` files (the warehouse) may never be inside it."""
    if target.exists() and not target.is_dir():
        raise _refused(target, "exists and is not a directory")
    if target.parent.exists() and not target.parent.is_dir():
        raise _refused(target.parent, "is not a directory")
    inside = [path for path in (resolved_target(p) for p in protected if p)
              if path == target or path.is_relative_to(target)]
    warehouse_inside = _refused(target, f"holds the warehouse file {inside[0]}: an output never replaces its "
                                        "directory") if inside else None
    if inside and inside[0].parent in (target, target.parent):
        raise warehouse_inside
    if not target.is_dir() or not any(target.iterdir()):
        return
    listing = read_listing(target, kind)  # `export /`: not empty, no mark of an output, before what lies deep in it
    if warehouse_inside:
        raise warehouse_inside
    foreign = sorted(path for path, file in _files_below(target).items()
                     if path != MARKER and not _as_listed(file, listing.get(path)))
    if foreign:
        named = few(foreign, SHOWN)
        raise _refused(target, f"holds files the previous {kind} did not write or that changed since: {named}; "
                               "they are never deleted. Move them, or choose a new or empty directory")


def warehouse_files(con) -> list[str]:
    """The database files a DuckDB connection has open (never inside an output directory)."""
    return [path for (path,) in con.execute(
        "SELECT path FROM duckdb_databases() WHERE path IS NOT NULL AND NOT internal").fetchall()]


def _refused(path: Path, why: str) -> OutputDirRefused:
    return OutputDirRefused(f"{path} {why}; nothing was written")


def read_listing(directory: Path, kind: str) -> dict[str, dict]:
    """The files a previous output of `kind` says it wrote: path -> {bytes, sha256}; refused when
    there is no readable proof."""
    try:
        marker = json.loads((directory / MARKER).read_text(encoding="utf-8"))
        if marker["kind"] != kind:
            raise _refused(directory, f"holds an mlperf-wh {marker['kind']}, not a {kind}: choose another directory")
        return {f["path"]: f for f in marker["files"]}
    except (OSError, ValueError, KeyError, TypeError):
        pass
    raise _refused(directory, f"is not empty and holds no {kind} written by mlperf-wh (no readable {MARKER}): "
                              "choose a new or empty directory")


def _files_below(directory: Path) -> dict[str, Path]:
    """Everything below `directory` but its subdirectories (symlinks and special files included)."""
    return {path.relative_to(directory).as_posix(): path for path in directory.rglob("*")
            if path.is_symlink() or not path.is_dir()}


def _as_listed(file: Path, entry: dict | None) -> bool:
    return (entry is not None and not file.is_symlink() and file.is_file()
            and file.stat().st_size == entry.get("bytes") and sha256_of(file) == entry.get("sha256"))


def write_listing(staging: Path, kind: str) -> None:
    """The marker, written last: every file of the finished output with its size and sha256."""
    files = [{"path": name, "bytes": path.stat().st_size, "sha256": sha256_of(path)}
             for name, path in sorted(_files_below(staging).items()) if name != PARTIAL_MARKER]
    marker = {"written_by": "mlperf-wh", "kind": kind, "files": files}
    (staging / PARTIAL_MARKER).unlink(missing_ok=True)
    (staging / MARKER).write_text(json.dumps(marker, indent=2), encoding="utf-8")


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def make_staging_dir(target: Path) -> Path:
    """An empty directory beside `target` (same file system, so it can be renamed into place),
    readable by others as the finished directory will be (mkdtemp makes it private)."""
    staging = Path(tempfile.mkdtemp(prefix=f"{_partial_prefix(target)}{os.getpid()}-", dir=target.parent))
    (staging / PARTIAL_MARKER).write_text(json.dumps(_partial_claim(staging)), encoding="utf-8")
    staging.chmod(0o755)
    return staging


def _partial_claim(staging: Path) -> dict:
    """What PARTIAL_MARKER says: this directory (its name and inode) was made by this process."""
    return {"written_by": "mlperf-wh", "directory": staging.name, "inode": staging.stat().st_ino,
            "pid": os.getpid()}


def _partial_prefix(target: Path) -> str:
    return f".{target.name}.partial-"


def remove_abandoned_partials(target: Path, kind: str) -> None:
    """Temporary directories left by an output that was killed (its process is gone): one proved ours
    by its PARTIAL_MARKER is removed; a previous output swapped out of `target` and not yet taken apart
    (it holds MARKER, no claim) is taken apart as remove_previous does, anything unlisted kept beside
    the target. Any other directory of such a name is left as it is."""
    pattern = re.compile(re.escape(_partial_prefix(target)) + r"(\d+)-")
    for path in target.parent.glob(_partial_prefix(target) + "*"):
        found = pattern.match(path.name)
        if not found or path.is_symlink() or not path.is_dir() or _process_alive(int(found.group(1))):
            continue
        if _claimed_by(path, int(found.group(1))):
            shutil.rmtree(path, ignore_errors=True)
        elif _swapped_out(path, kind):
            remove_previous(path, target, kind)


def _swapped_out(path: Path, kind: str) -> bool:
    """A previous output of this kind, ours: it holds MARKER (the listing of what we wrote) and no claim."""
    if (path / PARTIAL_MARKER).exists() or path.stat().st_uid != os.getuid():
        return False
    try:
        read_listing(path, kind)
    except (ExpectedFailure, OSError, ValueError, KeyError, TypeError):
        return False
    return True


def _claimed_by(path: Path, pid: int) -> bool:
    try:
        info = path.stat()
        if info.st_uid != os.getuid():
            return False
        claim = json.loads((path / PARTIAL_MARKER).read_text(encoding="utf-8"))
    except ValueError:
        return _holds_only_an_unwritten_claim(path)
    except FileNotFoundError:
        return _is_empty(path)  # killed before its claim was even created
    except OSError:
        return False
    return (isinstance(claim, dict) and claim.get("directory") == path.name and claim.get("pid") == pid
            and claim.get("inode") == info.st_ino)


def _is_empty(path: Path) -> bool:
    try:
        return next(path.iterdir(), None) is None
    except OSError:
        return False


def _holds_only_an_unwritten_claim(path: Path) -> bool:
    """A writer killed between creating PARTIAL_MARKER and writing it whole left a directory holding
    that file alone, cut short: nothing in it is anyone's, so it may go."""
    try:
        entries = list(path.iterdir())
    except OSError:
        return False
    return ([e.name for e in entries] == [PARTIAL_MARKER] and not entries[0].is_symlink()
            and entries[0].is_file() and entries[0].stat().st_size < 4096)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def swap_in(staging: Path, target: Path, kind: str) -> None:
    """Put a finished directory at `target` in one step; the previous output is removed after, file
    by file as its listing names them (check_replaceable has proved them ours)."""
    if not target.exists():
        os.rename(staging, target)
        return
    if _exchange(staging, target):
        remove_previous(staging, target, kind)  # staging now holds the previous output
        return
    # No atomic exchange on this system: two renames. A crash between them leaves the previous
    # output whole under `previous` and nothing half-written at `target`.
    previous = target.with_name(f"{_partial_prefix(target)}{os.getpid()}-previous")
    os.rename(target, previous)
    os.rename(staging, target)
    remove_previous(previous, target, kind)


def remove_previous(previous: Path, target: Path, kind: str) -> None:
    """Remove a replaced output: each listed file still as listed, then the directories left empty.
    Anything else (a file that arrived after the check) is kept, in a directory beside the target."""
    listing = read_listing(previous, kind) if any(previous.iterdir()) else {}
    for name, file in _files_below(previous).items():
        if name == MARKER or _as_listed(file, listing.get(name)):
            file.unlink()
    for directory in sorted((p for p in previous.rglob("*") if p.is_dir() and not p.is_symlink()),
                            key=lambda p: len(p.parts), reverse=True):
        _remove_if_empty(directory)
    if not _remove_if_empty(previous):
        previous.rename(target.with_name(f"{target.name}.kept-{os.getpid()}"))


def _remove_if_empty(directory: Path) -> bool:
    try:
        directory.rmdir()
        return True
    except OSError:
        return False


def _exchange(a: Path, b: Path) -> bool:
    """Atomically swap two directories (Linux renameat2 RENAME_EXCHANGE); False when unsupported.

    ctypes, not a library: no maintained package exposes RENAME_EXCHANGE, and os.replace cannot
    swap two non-empty directories."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    renameat2 = getattr(libc, "renameat2", None)
    if renameat2 is None:
        return False
    at_fdcwd, rename_exchange = -100, 2
    if renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))

