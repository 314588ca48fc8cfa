"""The submission tree of a round a user does not have, fetched from its public git repository without
downloading gigabytes: a partial (blobless), shallow, sparse clone whose checkout holds the files the
rebuild reads and nothing else.

  git clone --filter=blob:none --sparse --no-checkout --depth 1 --branch <branch> <url> <dest>
  git -C <dest> sparse-checkout set --no-cone <SPARSE_PATTERNS>
  git -C <dest> checkout <branch>

The clone holds the commit and its trees (directory listings) and only the blobs the checkout needs:
systems/*.json and performance/run_1/mlperf_log_summary.txt, a few MB where a round repository is
several GB of logs. A second run fetches the branch again and moves the checkout to it. The server must
allow filtering (GitHub does; a self-hosted one needs uploadpack.allowFilter); one that does not is
refused, naming that, rather than cloned whole.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

from warehouse.errors import ExpectedFailure

SPARSE_PATTERNS = ("/*/*/systems/*.json",
                   "/*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt")
GIT_SECONDS = 1800


class CloneFailed(ExpectedFailure):
    """git could not clone or update the round's repository."""


def clone_round(git_base: str, round, cache: Path) -> Path:
    """The round's tree at `cache/<repository>`, cloned (or brought up to date) from
    `<git_base>/<repository>`; its path."""
    url = f"{git_base.rstrip('/')}/{round.repository}"
    dest = cache / round.repository
    if (dest / ".git").is_dir():
        _git(["-C", str(dest), "fetch", "--filter=blob:none", "--depth", "1", "origin", round.branch], url)
        _git(["-C", str(dest), "checkout", "--detach", "FETCH_HEAD"], url)
        return dest
    cache.mkdir(parents=True, exist_ok=True)
    said = _git(["clone", "--filter=blob:none", "--sparse", "--no-checkout", "--depth", "1", "--branch",
                 round.branch, url, str(dest)], url)
    if "filtering not recognized" in said:
        import shutil
        shutil.rmtree(dest, ignore_errors=True)
        raise CloneFailed(f"{url} does not allow partial clones (uploadpack.allowFilter): a clone would "
                          "download every file of the round; nothing was kept")
    _git(["-C", str(dest), "sparse-checkout", "set", "--no-cone", *SPARSE_PATTERNS], url)
    _git(["-C", str(dest), "checkout", round.branch], url)
    return dest


def _git(arguments: list[str], url: str) -> str:
    """Run git; its stderr (progress and warnings) when it succeeds, else CloneFailed with it."""
    try:
        done = subprocess.run(["git", *arguments], capture_output=True, text=True, timeout=GIT_SECONDS,
                              env=_environment())
    except FileNotFoundError as exc:
        raise CloneFailed("git is not installed: it clones the trees of rounds with no published table") from exc
    except subprocess.TimeoutExpired as exc:
        raise CloneFailed(f"git {arguments[0]} of {url} took longer than {GIT_SECONDS} s") from exc
    if done.returncode != 0:
        said = " ".join(done.stderr.split())[-400:]
        if "filter" in said.lower() and "not" in said.lower():
            said += " (the server must allow partial clones: uploadpack.allowFilter)"
        raise CloneFailed(f"git {' '.join(a for a in arguments if not a.startswith('/'))[:120]} failed for {url}: {said}")
    return done.stderr


def _environment() -> dict:
    import os
    # Never prompt for credentials: a repository that does not exist answers 401 on GitHub.
    return {**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "true"}
