"""Output directories replaced whole: an export or a report is written into a temporary directory
beside its target and swapped in with one atomic rename, so a reader of the target sees the previous
output or the new one, never half of one; what a killed writer left behind is removed next time."""
from __future__ import annotations

import ctypes
import errno
import os
import re
import shutil
import sys
import tempfile
from pathlib import Path

def make_staging_dir(target: Path) -> Path:
    """An empty directory beside `target` (same file system, so it can be renamed into place),
    readable by others as the finished directory will be (mkdtemp makes it private)."""
    staging = Path(tempfile.mkdtemp(prefix=f"{_partial_prefix(target)}{os.getpid()}-", dir=target.parent))
    staging.chmod(0o755)
    return staging


def _partial_prefix(target: Path) -> str:
    return f".{target.name}.partial-"


def remove_abandoned_partials(target: Path) -> None:
    """Temporary directories left by an export that was killed (its process is gone)."""
    pattern = re.compile(re.escape(_partial_prefix(target)) + r"(\d+)-")
    for path in target.parent.glob(_partial_prefix(target) + "*"):
        found = pattern.match(path.name)
        if found and not _process_alive(int(found.group(1))):
            shutil.rmtree(path, ignore_errors=True)


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def swap_in(staging: Path, target: Path) -> None:
    """Put a finished directory at `target` in one step; what was there before is removed after."""
    if not target.exists():
        os.rename(staging, target)
        return
    if _exchange(staging, target):
        shutil.rmtree(staging)  # it now holds the previous export
        return
    # No atomic exchange on this system: two renames. A crash between them leaves the previous
    # export whole under `previous` and nothing half-written at `target`.
    previous = target.with_name(f"{_partial_prefix(target)}{os.getpid()}-previous")
    os.rename(target, previous)
    os.rename(staging, target)
    shutil.rmtree(previous)


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


# --- writers: each returns one entry per file (per sheet for the workbook) -----------------------
