"""The submission tree of a round a user does not have, fetched from its public git repository without
downloading gigabytes: a partial (blobless), shallow, sparse clone whose checkout holds the files the
rebuild reads and nothing else.

  git clone --filter=blob:none --sparse --no-checkout --depth 1 --branch <branch> -- <url> <temporary>
  git -C <temporary> sparse-checkout set --no-cone -- <SPARSE_PATTERNS>
  git -C <temporary> checkout <branch> --
  rename <temporary> -> <dest>

The clone holds the commit and its trees (directory listings) and only the blobs the checkout needs:
systems/*.json and performance/run_1/mlperf_log_summary.txt, and a power run's spl.txt and (added by
its path once the checkout shows the spl.txt) its mlperf_log_detail.txt, a few MB where a round
repository is several GB of logs. The server must allow filtering (GitHub does; a self-hosted one needs
uploadpack.allowFilter); one that does not is refused, naming that, rather than cloned whole.

A clone is made in a temporary directory beside its destination and renamed into place only when all
three steps are done, so a clone stopped at any point is never taken for a tree. A second run fetches
the branch from the URL it is given (never from a remembered origin) and moves the checkout to it; a
clone that is not whole (a lock file left by a stopped git, a sparse checkout not set) or that came
from another URL is cloned again. The URL is checked first (trees/git_remote.py) and always follows `--`;
credentials reach git through its environment alone (a credential helper that reads them from there,
for the URL's host only), never its arguments or the clone's .git/config. git runs in a process group
of its own, under a shell that kills the group when this process dies (SIGKILL included) or stops it.
Two runs take turns on a round's clone (an flock beside it). One odd path of the remote tree (one git
refuses, a name that is not UTF-8) is left out of the checkout and quarantined, never a failed round;
a symbolic link is checked out as a file holding its target.
"""
from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import subprocess
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from warehouse.errors import ExpectedFailure
from warehouse.trees.git_remote import ALLOWED_PROTOCOLS, TOKEN_ENV, USERNAME_ENV, GitRemote, parse_git_url
from warehouse.interrupt import die_with_parent, stop_process_group

SPARSE_PATTERNS = ("/*/*/systems/*.json",
                   "/*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt",
                   "/*/*/results/*/*/*/performance/run_1/spl.txt")
# A power run's detail log (every run has one; only a power run's is read, beside its spl.txt): added
# to the sparse checkout by its literal path once the checkout shows which runs hold spl.txt.
POWER_DETAIL = "performance/run_1/mlperf_log_detail.txt"
# The same files as pathspecs, for a tree git refuses to check out whole (a path it finds invalid); its
# power files are checked out after them, by their literal paths (a glob that matches nothing fails)
PATHSPECS = tuple(f":(glob){pattern.lstrip('/')}" for pattern in SPARSE_PATTERNS[:2])
SPL_PATH = re.compile(r"[^/]+/[^/]+/results/[^/]+/[^/]+/[^/]+/performance/run_1/spl\.txt")
MAX_REFUSED_PATHS = 20
GIT_SECONDS = 1800
STOP_GRACE = 2.0
# The group leader: git runs below it; a TERM (ours, or the kernel's when this process dies) kills the
# whole group, git's helpers (git-remote-http, index-pack) included.
_GROUP_LEADER = 'trap "kill -KILL 0" TERM INT HUP; "$@" & wait $!'
_CREDENTIAL_HELPER = (f'!f() {{ test "$1" = get && test -n "${TOKEN_ENV}" && '
                      f'printf "username=%s\\npassword=%s\\n" "${{{USERNAME_ENV}:-git}}" "${TOKEN_ENV}"; }}; f')
_STALE_LOCKS = ("index.lock", "shallow.lock", "HEAD.lock", "config.lock")
_CORE_KEYS = ("repositoryformatversion", "filemode", "bare", "logallrefupdates", "sparsecheckout",
              "sparsecheckoutcone")
_REMOTE_KEYS = ("url", "fetch", "promisor", "partialclonefilter")


class CloneFailed(ExpectedFailure):
    """git could not clone or update the round's repository (`said`: git's own words)."""

    def __init__(self, message: str, said: str = ""):
        super().__init__(message)
        self.said = said


REFUSED_BY_GIT = "git refuses this path of the remote tree (an invalid path): not checked out, not read"
NOT_UTF8 = "a file name that is not UTF-8 (shown with \\x escapes): removed from the checkout, not read"


@dataclass(frozen=True)
class ClonedTree:
    """A round's clone: its root, and the paths left out of it with why (a path git refuses to check
    out, such as a '.git' or '..' part; a name that is not UTF-8), quarantined rather than failing the round."""
    root: Path
    left_out: tuple[tuple[str, str], ...] = ()


def clone_round(git_base: str | GitRemote, round, cache: Path) -> ClonedTree:
    """The round's tree at `cache/<repository>`, cloned (or brought up to date) from
    `<git_base>/<repository>`."""
    base = git_base if isinstance(git_base, GitRemote) else parse_git_url(git_base)
    remote = base.with_environment_credentials().joined(round.repository)
    cache.mkdir(parents=True, exist_ok=True)
    with _held(cache / f".{round.repository}.lock"):  # another run's clone of the round is left alone
        root, refused = _cloned(remote, round.branch, cache / round.repository)
        left_out = [(path, REFUSED_BY_GIT) for path in refused]
        return ClonedTree(root, tuple(left_out + [(path, NOT_UTF8) for path in _undecodable_names_removed(root)]))


@contextmanager
def _held(lock: Path):
    """An exclusive lock on `lock` for the block (released by the kernel if this process dies)."""
    try:
        descriptor = os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    except OSError as exc:  # a link or a directory planted there: never followed
        raise CloneFailed(f"{lock}: cannot be the clone's lock file ({exc.strerror}); remove it") from exc
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)


def _cloned(remote: GitRemote, branch: str, dest: Path) -> tuple[Path, tuple[str, ...]]:
    """The clone at `dest`, brought up to date or made again; the paths git refused."""
    _remove_leftovers(dest.parent, dest.name)
    if not dest.is_symlink() and (dest / ".git").is_dir() and _whole_clone_of(dest, remote, branch) \
            and _updated(dest, remote, branch):
        return dest, ()
    fresh = Path(tempfile.mkdtemp(prefix=f".{dest.name}.clone-", dir=dest.parent))
    fresh.chmod(0o755)  # as git clone makes a directory (mkdtemp's is the user's alone)
    try:
        refused = _clone_into(fresh, remote, branch)
        _put_in_place(fresh, dest)
    finally:
        shutil.rmtree(fresh, ignore_errors=True)
    return dest, refused


def _undecodable_names_removed(root: Path) -> list[str]:
    """Files of the checkout whose path is not UTF-8 (a Linux name may be any bytes; the warehouse's
    text may not), removed; their paths with \\x escapes."""
    removed = []
    for folder, folders, files in os.walk(os.fsencode(root)):
        folders[:] = [f for f in folders if f != b".git"]
        for name in files:
            path = os.path.relpath(os.path.join(folder, name), os.fsencode(root))
            try:
                path.decode("utf-8")
            except UnicodeDecodeError:
                os.unlink(os.path.join(folder, name))
                removed.append(path.decode("utf-8", "backslashreplace"))
    return sorted(removed)


def _updated(dest: Path, remote: GitRemote, branch: str) -> bool:
    """The clone at `dest` moved to the branch's latest commit, fetched from `remote`; False when git
    refuses a path of that commit (a new clone then checks out the files it can)."""
    _git(["-C", str(dest), "fetch", "--filter=blob:none", "--depth", "1", "--", remote.url, branch], remote)
    try:
        _git(["-C", str(dest), "checkout", "--detach", "FETCH_HEAD", "--"], remote)
        _with_power_detail_logs(dest, remote)
    except CloneFailed as exc:
        if not _invalid_paths(exc.said):
            raise
        return False
    return True


def _clone_into(fresh: Path, remote: GitRemote, branch: str) -> tuple[str, ...]:
    """Clone `remote` into `fresh`; the paths git refused to check out."""
    said = _git(["clone", "--filter=blob:none", "--sparse", "--no-checkout", "--depth", "1", "--branch", branch,
                 "--", remote.url, str(fresh)], remote)
    if "filtering not recognized" in said:
        raise CloneFailed(f"{remote.url} does not allow partial clones (uploadpack.allowFilter): a clone would "
                          "download every file of the round; nothing was kept")
    _git(["-C", str(fresh), "sparse-checkout", "set", "--no-cone", "--", *SPARSE_PATTERNS], remote)
    try:
        _git(["-C", str(fresh), "checkout", branch, "--"], remote)
        _with_power_detail_logs(fresh, remote)
    except CloneFailed as exc:
        if not _invalid_paths(exc.said):
            raise
        return _check_out_files(fresh, remote, branch)
    return ()


def _with_power_detail_logs(clone: Path, remote: GitRemote) -> None:
    """The detail log of each run the checkout shows a spl.txt for, added to the sparse checkout by
    its literal path (a pattern cannot say "beside a spl.txt"), so only power runs' detail logs are
    fetched. A tree git refuses a path of keeps its power runs without them (their figures are then
    quarantined, naming the missing log)."""
    scenarios = sorted(spl.parents[2].relative_to(clone).as_posix()
                       for spl in clone.glob("*/*/results/*/*/*/performance/run_1/spl.txt") if spl.is_file())
    if scenarios:
        details = ["/" + _literal(f"{scenario}/{POWER_DETAIL}") for scenario in scenarios]
        _git(["-C", str(clone), "sparse-checkout", "set", "--no-cone", "--", *SPARSE_PATTERNS, *details], remote)


def _literal(path: str) -> str:
    """A path as a sparse-checkout pattern that matches it alone (gitignore's wildcards escaped)."""
    return re.sub(r"([\\*?\[\]!# ])", r"\\\1", path)


def _ours(patterns: list[str]) -> bool:
    """The sparse checkout a clone of ours sets: SPARSE_PATTERNS, then power runs' detail logs."""
    return tuple(patterns[:len(SPARSE_PATTERNS)]) == SPARSE_PATTERNS and all(
        p.startswith("/") and p.endswith(f"/{POWER_DETAIL}") for p in patterns[len(SPARSE_PATTERNS):])


def _check_out_files(fresh: Path, remote: GitRemote, branch: str) -> tuple[str, ...]:
    """The rebuild's files checked out by pathspec (git then verifies only those paths, not the whole
    tree's), leaving out each one git names as invalid; the paths left out. git may name one and still
    succeed (the file is not written), or fail on it: then it is excluded and the checkout redone."""
    refused: list[str] = []
    while len(refused) <= MAX_REFUSED_PATHS:
        excluded = [f":(exclude,literal){path}" for path in refused]
        try:
            said = _git(["-C", str(fresh), "checkout", branch, "--", *PATHSPECS, *excluded], remote)
            refused += [path for path in _invalid_paths(said) if path not in refused]
            _power_files_by_path(fresh, remote, branch, refused)
            return tuple(refused)
        except CloneFailed as exc:
            named = [path for path in _invalid_paths(exc.said) if path not in refused]
            if not named:
                raise
            refused += named
    raise CloneFailed(f"{remote.url}: git refuses more than {MAX_REFUSED_PATHS} paths of the round's tree "
                      f"({', '.join(refused[:3])}, ...); nothing was kept")


def _power_files_by_path(clone: Path, remote: GitRemote, branch: str, refused: list[str]) -> None:
    """In a tree checked out by pathspec (its sparse checkout cannot be applied again): each power
    run's spl.txt and detail log, by their paths in the tree's listing (a blobless clone holds every
    folder listing). A power file git refuses too leaves its run without it: its figure is then a
    quarantine record naming the missing file."""
    listed = set((_answer(["ls-tree", "-r", "-z", "--name-only", branch], clone) or "").split("\0"))
    spls = sorted(path for path in listed if SPL_PATH.fullmatch(path) and path not in refused)
    details = [f"{spl.rsplit('/', 1)[0]}/mlperf_log_detail.txt" for spl in spls]
    wanted = spls + [path for path in details if path in listed and path not in refused]
    if not wanted:
        return
    try:
        _git(["-C", str(clone), "checkout", "--ignore-skip-worktree-bits", branch, "--",
              *(f":(literal){path}" for path in wanted)], remote)
    except CloneFailed as exc:
        if not _invalid_paths(exc.said):
            raise


def _invalid_paths(said: str) -> list[str]:
    """The paths git names in 'error: invalid path ...' lines."""
    return re.findall(r"^error: invalid path '(.+?)'$", said, re.MULTILINE)


def _put_in_place(fresh: Path, dest: Path) -> None:
    """`fresh` renamed to `dest`; a `dest` there before (not whole, or another URL's) is removed."""
    if dest.exists() or dest.is_symlink():
        old = Path(tempfile.mkdtemp(prefix=f".{dest.name}.old-", dir=dest.parent))
        dest.rename(old / dest.name)
        shutil.rmtree(old, ignore_errors=True)
    fresh.rename(dest)


def _remove_leftovers(cache: Path, repository: str) -> None:
    """Temporary clones of a run that was stopped (or killed) before it renamed or removed them."""
    for leftover in [*cache.glob(f".{repository}.clone-*"), *cache.glob(f".{repository}.old-*")]:
        shutil.rmtree(leftover, ignore_errors=True)


def _whole_clone_of(dest: Path, remote: GitRemote, branch: str) -> bool:
    """The clone at `dest` was made whole from `remote`'s URL, and holds nothing a clone of ours does
    not: no lock a stopped git left, no configuration but what clone, sparse-checkout and fetch write
    (a planted core.fsmonitor or remote.origin.uploadpack would run a command), its origin the same
    URL, its sparse checkout set and HEAD a commit. Anything else is cloned again, never fetched into."""
    git_dir = dest / ".git"
    if any((git_dir / lock).exists() for lock in _STALE_LOCKS) or not (git_dir / "config").is_file():
        return False
    if not all(_only_our_keys(config, remote, branch) for config in (git_dir / "config", git_dir / "config.worktree")):
        return False
    checks = (["config", "--get", "remote.origin.url"], ["sparse-checkout", "list"], ["rev-parse", "--verify", "-q", "HEAD"])
    answers = [_answer(check, dest) for check in checks]
    return (answers[0] == remote.url and answers[1] is not None
            and _ours(answers[1].splitlines()) and bool(answers[2]))


def _only_our_keys(config: Path, remote: GitRemote, branch: str) -> bool:
    """The configuration file holds only the keys a clone of `remote` (ours) writes, or is absent."""
    if not config.exists():
        return True
    names = _answer(["config", "--file", str(config), "--null", "--name-only", "--list"])
    ours = {*(f"core.{k}" for k in _CORE_KEYS), *(f"remote.origin.{k}" for k in _REMOTE_KEYS),
            *(f"remote.{remote.url}.{k}" for k in ("promisor", "partialclonefilter")),
            "extensions.worktreeconfig", f"branch.{branch}.remote", f"branch.{branch}.merge"}
    return names is not None and set(filter(None, names.split("\0"))) <= ours


def _answer(arguments: list[str], dest: Path | None = None) -> str | None:
    """What a read-only git command says (about the clone at `dest`); None when it fails."""
    where = ["-C", str(dest)] if dest else []
    done = subprocess.run(["git", *where, *arguments], capture_output=True, text=True, timeout=60,
                          env=_environment(None), stdin=subprocess.DEVNULL)
    return done.stdout.strip() if done.returncode == 0 else None


def _git(arguments: list[str], remote: GitRemote) -> str:
    """Run git in its own process group; its stderr (progress and warnings) when it succeeds, else
    CloneFailed with it. The group is ended with the run: on a timeout, an interrupt or any error."""
    try:
        process = subprocess.Popen(["/bin/sh", "-c", _GROUP_LEADER, "git-group", "git", *arguments],
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   text=True, env=_environment(remote), start_new_session=True,
                                   preexec_fn=die_with_parent(os.getpid(), signal.SIGTERM))
    except FileNotFoundError as exc:
        raise CloneFailed("a shell (/bin/sh) is needed to run git") from exc
    try:
        _, said = process.communicate(timeout=GIT_SECONDS)
    except subprocess.TimeoutExpired as exc:
        stop_process_group(process, signal.SIGTERM, STOP_GRACE)
        raise CloneFailed(f"git {arguments[0]} of {remote.url} took longer than {GIT_SECONDS} s") from exc
    except BaseException:
        stop_process_group(process, signal.SIGTERM, STOP_GRACE)
        raise
    said = _without_secret(said, remote)
    if process.returncode == 127 and "not found" in said:
        raise CloneFailed("git is not installed: it clones the trees of rounds with no published table")
    if process.returncode != 0:
        raise CloneFailed(_failure(arguments, remote, said), said)
    return said


def _failure(arguments: list[str], remote: GitRemote, said: str) -> str:
    said = " ".join(said.split())[-400:]
    if "filter" in said.lower() and "not" in said.lower():
        said += " (the server must allow partial clones: uploadpack.allowFilter)"
    if "authentication failed" in said.lower() or "could not read username" in said.lower():
        said += (" (the token given was refused" if remote.token else " (no token was given") + \
            f": give one as user:token@ in the URL or in {TOKEN_ENV})"
    shown = " ".join(a for a in arguments if not a.startswith("/") and a not in (remote.url, "--"))[:120]
    return f"git {shown} failed for {remote.url}: {said}"


def _without_secret(text: str, remote: GitRemote) -> str:
    return text.replace(remote.token, "REDACTED") if remote.token else text


def _environment(remote: GitRemote | None) -> dict:
    """git's environment: never a prompt; only the allowed transports; no hooks, no background
    maintenance, no symbolic links in a checkout; no credential helper of the user's (one could store
    the token on disk), and, when there are credentials, one that hands them to the URL's host from
    this environment."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("GIT_CONFIG_") and k not in (TOKEN_ENV, USERNAME_ENV)}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true", SSH_ASKPASS="true", GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS)
    config = [("credential.helper", ""), ("protocol.ext.allow", "never"), ("core.hooksPath", os.devnull),
              ("maintenance.auto", "false"), ("gc.auto", "0"),  # no git left behind in the background
              ("core.symlinks", "false")]  # a link in the remote tree is checked out as a file holding its target
    scope = remote.credential_scope() if remote is not None and remote.token else None
    if scope:
        config.append((f"credential.{scope}.helper", _CREDENTIAL_HELPER))
        env.update({USERNAME_ENV: remote.username or "git", TOKEN_ENV: remote.token})
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for n, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"] = key, value
    return env
