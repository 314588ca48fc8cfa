"""The one way a file of a submission tree is read from a directory, `read_tree_file`, and the one way
its folders are listed, `TreeFolder`.

A tree is third-party content: thousands of submitters' commits, and Git keeps symbolic links. So a
tree file is read only when it is a regular file inside the tree:

- The tree root (`<source>/<repository>[/<branch>]`, planning.tree_root) is resolved once: the
  operator's own layout up to it may be links (a source directory linked from elsewhere). A root in
  /proc, /sys or /dev is refused.
- Below the root, no symbolic link is followed, whether it leads out of the tree or stays inside:
  every folder on the way down and the file itself are opened relative to the one above with
  O_NOFOLLOW (openat), so neither a link nor a folder swapped for a link while the tree is read can
  lead anywhere else. Refusing every link rather than only links out of the root: published trees
  hold none (a file the submission checker reads is a plain file in the repository), a link that
  stays inside today leads out after the next commit, and following none is the rule that can be
  checked without a race (a realpath check and a later open are two looks at the disk).
- Only a regular file is opened: a FIFO, a device or a socket is refused from its lstat, before any
  open (opening a FIFO would wait for a writer; opening some devices acts on them).

A refused file's content is never read, so it reaches no table, log or output; the reason names
the tree path and what it is. A listing keeps the same rule for names: a folder is entered only as a
folder, a link is named as itself and never followed (a `results` linked to /usr is one link, not
/usr's folders; a loop is one link). Reading over HTTP (a mirror) has no links to follow: the server
decides what it serves.
"""
from __future__ import annotations

import errno
import os
import stat
import time
from functools import lru_cache
from pathlib import Path

from warehouse.ingest.fetch import FetchError, NotFound, TooLarge

SYSTEM_ROOTS = ("/proc", "/sys", "/dev")
DIRECTORY_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
FILE_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
READ_SIZE = 1024 * 1024


class RefusedTreeFile(FetchError):
    """A tree file that is not a regular file inside the tree: never read."""


def read_tree_file(root: str | Path, relative: str, max_bytes: int, keep: int | None = None) -> bytes:
    """The bytes of `relative` (a tree path, '/'-separated) under the tree `root`; with `keep`, its
    first `keep` bytes only. NotFound when it is not there; RefusedTreeFile when a part of the way is
    a symbolic link, or the file is not a regular file; TooLarge past `max_bytes`."""
    label = f"{root}/{relative}"
    parts = relative.split("/")
    if not relative or any(part in ("", ".", "..") for part in parts):
        raise RefusedTreeFile(f"{label}: not a plain path inside the tree")
    directory = _open_root(root, label)
    try:
        for depth, part in enumerate(parts[:-1]):
            parent, directory = directory, None
            try:
                directory = _open_folder(parent, part, label, "/".join(parts[:depth + 1]))
            finally:
                os.close(parent)
        return _read_file(directory, parts[-1], label, max_bytes, keep)
    finally:
        if directory is not None:
            os.close(directory)


def file_identity(root: str | Path, relative: str) -> str | None:
    """'size mtime_ns inode ctime_ns' of the regular file `relative` under `root`, from its lstat, or None
    (not there, not a regular file, unreadable): what a rerun compares with the last load to leave an
    unchanged file unopened. A stat opens nothing, so unlike read_tree_file it may go through the
    folders' path: a match names the very file (inode) the last load read, unchanged in size and
    time, and a mismatch only means the file is read again, through read_tree_file's checks. Taken
    before the read: a file changed after its stat differs at the next run and is read again."""
    try:
        found = os.stat(f"{_resolved(str(root))}/{relative}", follow_symlinks=False)
    except (OSError, ValueError):
        return None
    return identity_of(found)


def identity_in_folder(directory: int, name: str) -> str | None:
    """file_identity of `name` in a tree folder already open (listing.TreeFolder): one lstat."""
    try:
        return identity_of(os.stat(name, dir_fd=directory, follow_symlinks=False))
    except (OSError, ValueError):
        return None


def identity_of(found: os.stat_result) -> str | None:
    """The change time too: a file written in place with its size and mtime put back (utime sets the
    mtime, never the ctime) is not the file read before."""
    return (f"{found.st_size} {found.st_mtime_ns} {found.st_ino} {found.st_ctime_ns}" if stat.S_ISREG(found.st_mode)
            else None)


def folder_identity_of(found: os.stat_result) -> str | None:
    """'folder mtime_ns inode ctime_ns' of a folder: its mtime changes when a name in it is added,
    removed or renamed (not when a file in it is written: each file has its own identity)."""
    return f"folder {found.st_mtime_ns} {found.st_ino} {found.st_ctime_ns}" if stat.S_ISDIR(found.st_mode) else None


def identities_now(root: str | Path, recorded: list[tuple[str, str]]) -> list[str | None]:
    """The identity of each (tree path, kind) now, from an lstat through the path ('' is the root;
    kind 'folder' or 'file'), None for what is not there or not of its kind. As file_identity, a stat
    opens nothing: a match means the last pass's folders hold the same names and its files the same
    bytes, so listing them again would list the same; a mismatch only means the tree is walked."""
    base = _resolved(str(root))
    found = []
    for path, kind in recorded:
        try:
            at = os.stat(f"{base}/{path}" if path else base, follow_symlinks=False)
        except (OSError, ValueError):
            found.append(None)
            continue
        found.append(folder_identity_of(at) if kind == "folder" else identity_of(at))
    return found


def read_in_folder(directory: int, name: str, label: str, max_bytes: int) -> bytes:
    """The bytes of `name` in a tree folder already open (listing.TreeFolder, reached through no
    link), read as read_tree_file reads the file at the end of its way: one pass, no folder opened
    again."""
    return _read_file(directory, name, label, max_bytes, None)


SETTLED_NS = 2_000_000_000  # a file modified this recently may change again within its mtime's tick


def settled(identity: str | None) -> bool:
    """An identity worth recording: its file was last modified over 2 s ago. A file read while it is
    being written may be written again, same size, within the same clock tick of its mtime (the
    'racily clean' files of git's index); its identity is not recorded, so the next run reads it again."""
    if identity is None:
        return False
    mtime_ns = int(identity.split(" ")[1])
    return mtime_ns < time.time_ns() - SETTLED_NS


@lru_cache(maxsize=64)
def _resolved(root: str) -> str:
    return os.path.realpath(root)   # once per root: a rerun stats every file of every tree


def tree_root_problem(root: str | Path) -> str | None:
    """Why a tree root may not be read from (it lies in /proc, /sys or /dev), or None."""
    real = os.path.realpath(root)
    inside = next((top for top in SYSTEM_ROOTS if real == top or real.startswith(top + "/")), None)
    return f"{root} is in {inside}: a submission tree is read from a directory of files" if inside else None


def _open_root(root: str | Path, label: str) -> int:
    if (problem := tree_root_problem(root)) is not None:
        raise RefusedTreeFile(f"{label}: {problem}")
    try:
        return os.open(os.path.realpath(root), os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    except (FileNotFoundError, NotADirectoryError):
        raise NotFound(f"{label}: no such file (no tree at {root})") from None
    except OSError as exc:
        raise FetchError(f"{label}: cannot open the tree root ({exc.strerror or exc})") from None


def _open_folder(parent: int, name: str, label: str, shown: str) -> int:
    """The folder `name` in `parent`, never through a link."""
    try:
        return os.open(name, DIRECTORY_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        raise NotFound(f"{label}: no such file") from None
    except OSError as exc:
        kind = _kind(parent, name)
        if exc.errno in (errno.ELOOP, errno.ENOTDIR) and kind == "a symbolic link":
            raise RefusedTreeFile(f"{label}: refused: {shown} is a symbolic link; tree files are read "
                                  "only as regular files inside the tree, through no link") from None
        if exc.errno == errno.ENOTDIR:
            raise NotFound(f"{label}: no such file ({shown} is {kind}, not a folder)") from None
        raise FetchError(f"{label}: cannot open {shown} ({exc.strerror or exc})") from None


def _read_file(directory: int, name: str, label: str, max_bytes: int, keep: int | None) -> bytes:
    try:
        before = os.stat(name, dir_fd=directory, follow_symlinks=False)
    except FileNotFoundError:
        raise NotFound(f"{label}: no such file") from None
    except OSError as exc:
        raise FetchError(f"{label}: cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(before.st_mode):
        raise RefusedTreeFile(f"{label}: refused: it is {_kind_of(before.st_mode)}; tree files are read only "
                              "as regular files inside the tree, through no link")
    try:
        descriptor = os.open(name, FILE_FLAGS, dir_fd=directory)
    except OSError as exc:  # replaced by a link or removed since its lstat
        raise RefusedTreeFile(f"{label}: refused: it changed while it was opened ({exc.strerror or exc})") from None
    with os.fdopen(descriptor, "rb") as f:
        opened = os.fstat(f.fileno())
        if not stat.S_ISREG(opened.st_mode) or (opened.st_dev, opened.st_ino) != (before.st_dev, before.st_ino):
            raise RefusedTreeFile(f"{label}: refused: it changed while it was opened")
        if keep is not None:
            return f.read(keep)
        if opened.st_size > max_bytes:
            raise TooLarge(f"{label}: {opened.st_size} bytes is over the size cap of {max_bytes} bytes "
                           "(MLPERF_FETCH_MAX_BYTES)")
        content = f.read(max_bytes + 1)
    if len(content) > max_bytes:
        raise TooLarge(f"{label}: over the size cap of {max_bytes} bytes (MLPERF_FETCH_MAX_BYTES)")
    return content


def _kind(parent: int, name: str) -> str:
    try:
        return _kind_of(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode)
    except OSError:
        return "unreadable"


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device file"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a folder"
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"
