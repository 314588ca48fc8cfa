"""The submission tree of a round a user does not have, fetched from its public git repository without
downloading gigabytes: a partial (blobless), shallow, sparse clone whose checkout holds the files the
rebuild reads and nothing else.

  git clone --filter=blob:none --sparse --no-checkout --depth 1 --branch <branch> -- <url> <temporary>
  git -C <temporary> sparse-checkout set --no-cone -- <SPARSE_PATTERNS>
  git -C <temporary> checkout <branch> --
  rename <temporary> -> <its folder>

The clone holds the commit and its trees (directory listings) and only the blobs the checkout needs:
systems/*.json and performance/run_1/mlperf_log_summary.txt, and a power run's spl.txt and (added by
its path once the checkout shows the spl.txt) its mlperf_log_detail.txt (and, in a round of local
times, v1.0, its performance/power/client.json and server.json), a few MB where a round
repository is several GB of logs. The server must allow filtering (GitHub does; a self-hosted one needs
uploadpack.allowFilter); one that does not is refused, naming that, rather than cloned whole.

A clone owns only what it made: it lives in a folder the warehouse made and marked, never in one of
someone else's (trees/clone_folders.py). It is made in a marked temporary folder beside its place
and renamed into place only when all three steps are done, so a clone stopped at any point is never
taken for a tree. A second run fetches the branch from the URL it is
given (never from a remembered origin) and moves the checkout to it; a clone of the warehouse's that
is not whole (a lock file left by a stopped git, a sparse checkout not set) or that came from
another URL is cloned again. The URL is checked first (trees/git_remote.py) and always follows `--`;
credentials reach git through its environment alone (a credential helper that reads them from there,
for the URL's host only), never its arguments or the clone's .git/config. git's network waits are
bounded (trees/git_network.py) and it runs in a process group of its own, under a shell that kills
the group when this process dies (SIGKILL included), stops it, or the run's deadline passes. A run
clones before it takes the writer lock (flows/trees.py) and holds each round's lock (an flock
beside its clone) until it has loaded it, so two runs take turns on a round's clone and neither moves
a tree the other is reading. One odd path of the remote tree (one git refuses, a name that is not
UTF-8) is left out of the checkout and quarantined, never a failed round; a symbolic link is checked
out as a file holding its target.
"""
from __future__ import annotations

import fcntl
import os
import re
import signal
import subprocess
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from warehouse.errors import ExpectedFailure
from warehouse.trees.clone_folders import (clone_place, mark, marked_temporary, put_in_place, remove_leftovers,
                                            remove_ours, taken)
from warehouse.trees.git_network import NetworkBudget, connects_within, first_hop
from warehouse.trees.git_remote import ALLOWED_PROTOCOLS, TOKEN_ENV, USERNAME_ENV, GitRemote, parse_git_url
from warehouse.trees.parsing_power import POWER_FOLDER, TIMEZONE_FILES
from warehouse.trees.power import power_rule, reads_timezones
from warehouse.interrupt import die_with_parent, stop_process_group

SPARSE_PATTERNS = ("/*/*/systems/*.json",
                   "/*/*/results/*/*/*/performance/run_1/mlperf_log_summary.txt",
                   "/*/*/results/*/*/*/performance/run_1/spl.txt")
# A power run's detail log (every run has one; only a power run's is read, beside its spl.txt): added
# to the sparse checkout by its literal path once the checkout shows which runs hold spl.txt.
POWER_DETAIL = "performance/run_1/mlperf_log_detail.txt"
# A power run's timezone files, added the same way for a round of local times only (trees/power.py)
POWER_TIMEZONES = tuple(f"{POWER_FOLDER}/{name}" for name in TIMEZONE_FILES)
# The same files as pathspecs, for a tree git refuses to check out whole (a path it finds invalid); its
# power files are checked out after them, by their literal paths (a glob that matches nothing fails)
PATHSPECS = tuple(f":(glob){pattern.lstrip('/')}" for pattern in SPARSE_PATTERNS[:2])
SPL_PATH = re.compile(r"[^/]+/[^/]+/results/[^/]+/[^/]+/[^/]+/performance/run_1/spl\.txt")
MAX_REFUSED_PATHS = 20
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
# What of the user's environment would choose another ssh, or other arguments for it
_SSH_CHOOSERS = ("GIT_SSH", "GIT_SSH_COMMAND", "GIT_SSH_VARIANT")
_CLONING_INTO = re.compile(r"Cloning into '[^']*'\.\.\.")


class CloneFailed(ExpectedFailure):
    """git could not clone or update the round's repository (`said`: git's own words), or the clone
    has no folder of its own to go to."""

    def __init__(self, message: str, said: str = ""):
        super().__init__(message)
        self.said = said


REFUSED_BY_GIT = "git refuses this path of the remote tree (an invalid path): not checked out, not read"
NOT_UTF8 = "a file name that is not UTF-8 (shown with \\x escapes): removed from the checkout, not read"


@dataclass(frozen=True)
class ClonedTree:
    """A round's clone: its root, the paths left out of it with why (a path git refuses to check
    out, such as a '.git' or '..' part; a name that is not UTF-8), quarantined rather than failing the
    round, and a note when it went beside a folder the warehouse did not make."""
    root: Path
    left_out: tuple[tuple[str, str], ...] = ()
    note: str | None = None


def clone_round(git_base: str | GitRemote, round, cache: Path, budget: NetworkBudget | None = None) -> ClonedTree:
    """The round's tree in its folder in `cache` (clone_place), cloned (or brought up to date) from
    `<git_base>/<repository>`."""
    with held_clones(git_base, [round], cache, budget) as clones:
        return clones[round.name]


@contextmanager
def held_clones(git_base: str | GitRemote, rounds, cache: Path,
                budget: NetworkBudget | None = None) -> Iterator[dict[str, ClonedTree]]:
    """Each round's clone made or brought up to date, in the order given, within one network budget;
    each round's lock held until the block ends, so another run never moves a tree this one reads."""
    base = git_base if isinstance(git_base, GitRemote) else parse_git_url(git_base)
    base = base.with_environment_credentials()
    budget = budget or NetworkBudget.from_settings()
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:  # a file there, or no right to write beside the warehouse
        raise CloneFailed(f"{cache}: cannot hold the clones ({exc.strerror}); it is left as it is: move it away "
                          "or put the warehouse (--db) where it can") from exc
    with ExitStack() as held:
        clones = {}
        for round in rounds:
            held.enter_context(_held(cache / f".{round.repository}.lock"))
            clones[round.name] = _clone(Git(base.joined(round.repository), budget), round, cache)
        yield clones


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


def _clone(git: "Git", round, cache: Path) -> ClonedTree:
    remove_leftovers(cache, round)
    place, note = clone_place(cache, round)
    git.check_connects()
    refused = _cloned(git, round, place)
    left_out = [(path, REFUSED_BY_GIT) for path in refused]
    return ClonedTree(place, tuple(left_out + [(path, NOT_UTF8) for path in _undecodable_names_removed(place)]), note)


def _cloned(git: "Git", round, place: Path) -> tuple[str, ...]:
    """The clone at `place` (the warehouse's, or nothing there) brought up to date, or made again;
    the paths git refused."""
    power = _power_files_of(round.name)
    if taken(place) and _whole_clone_of(place, git.remote, round.branch) and _updated(git, place, round.branch, power):
        return ()
    temporary = marked_temporary(place.parent, round, "clone", git.remote.url)
    try:
        fresh = temporary / round.repository
        refused = _clone_into(git, fresh, round.branch, power)
        mark(fresh, round, git.remote.url)
        put_in_place(fresh, place, round)
    finally:
        remove_ours(temporary)
    return refused


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


def _power_files_of(round_name: str) -> tuple[str, ...]:
    """What of a power run's scenario folder the round's figure reads beside its spl.txt: the detail
    log, and in a round of local times the power folder's timezone files."""
    return (POWER_DETAIL, *(POWER_TIMEZONES if reads_timezones(power_rule(round_name)) else ()))


def _updated(git: "Git", dest: Path, branch: str, power: tuple[str, ...] = (POWER_DETAIL,)) -> bool:
    """The clone at `dest` moved to the branch's latest commit, fetched from the remote; False when git
    refuses a path of that commit (a new clone then checks out the files it can)."""
    git(["-C", str(dest), "fetch", "--filter=blob:none", "--depth", "1", "--", git.remote.url, branch])
    try:
        git(["-C", str(dest), "checkout", "--detach", "FETCH_HEAD", "--"])
        _with_power_detail_logs(git, dest, power)
    except CloneFailed as exc:
        if not _invalid_paths(exc.said):
            raise
        return False
    return True


def _clone_into(git: "Git", fresh: Path, branch: str, power: tuple[str, ...] = (POWER_DETAIL,)) -> tuple[str, ...]:
    """Clone the remote into `fresh`; the paths git refused to check out."""
    said = git(["clone", "--filter=blob:none", "--sparse", "--no-checkout", "--depth", "1", "--branch", branch,
                "--", git.remote.url, str(fresh)])
    if "filtering not recognized" in said:
        raise CloneFailed(f"{git.remote.url} does not allow partial clones (uploadpack.allowFilter): a clone would "
                          "download every file of the round; nothing was kept")
    git(["-C", str(fresh), "sparse-checkout", "set", "--no-cone", "--", *SPARSE_PATTERNS])
    try:
        git(["-C", str(fresh), "checkout", branch, "--"])
        _with_power_detail_logs(git, fresh, power)
    except CloneFailed as exc:
        if not _invalid_paths(exc.said):
            raise
        return _check_out_files(git, fresh, branch, power)
    return ()


def _with_power_detail_logs(git: "Git", clone: Path, power: tuple[str, ...] = (POWER_DETAIL,)) -> None:
    """The detail log (and `power`'s other files: a round of local times's timezone files) of each run
    the checkout shows a spl.txt for, added to the sparse checkout by literal path (a pattern cannot
    say "beside a spl.txt"), so only power runs' files are fetched. A tree git refuses a path of
    keeps its power runs without them (their figures are then quarantined, naming the missing file)."""
    scenarios = sorted(spl.parents[2].relative_to(clone).as_posix()
                       for spl in clone.glob("*/*/results/*/*/*/performance/run_1/spl.txt") if spl.is_file())
    if scenarios:
        details = ["/" + _literal(f"{scenario}/{name}") for scenario in scenarios for name in power]
        git(["-C", str(clone), "sparse-checkout", "set", "--no-cone", "--", *SPARSE_PATTERNS, *details])


def _literal(path: str) -> str:
    """A path as a sparse-checkout pattern that matches it alone (gitignore's wildcards escaped)."""
    return re.sub(r"([\\*?\[\]!# ])", r"\\\1", path)


def _ours(patterns: list[str]) -> bool:
    """The sparse checkout a clone of ours sets: SPARSE_PATTERNS, then power runs' detail logs (and
    timezone files)."""
    return tuple(patterns[:len(SPARSE_PATTERNS)]) == SPARSE_PATTERNS and all(
        p.startswith("/") and p.endswith(tuple(f"/{name}" for name in (POWER_DETAIL, *POWER_TIMEZONES)))
        for p in patterns[len(SPARSE_PATTERNS):])


def _check_out_files(git: "Git", fresh: Path, branch: str, power: tuple[str, ...] = (POWER_DETAIL,)) -> tuple[str, ...]:
    """The rebuild's files checked out by pathspec (git then verifies only those paths, not the whole
    tree's), leaving out each one git names as invalid; the paths left out. git may name one and still
    succeed (the file is not written), or fail on it: then it is excluded and the checkout redone."""
    refused: list[str] = []
    while len(refused) <= MAX_REFUSED_PATHS:
        excluded = [f":(exclude,literal){path}" for path in refused]
        try:
            said = git(["-C", str(fresh), "checkout", branch, "--", *PATHSPECS, *excluded])
            refused += [path for path in _invalid_paths(said) if path not in refused]
            _power_files_by_path(git, fresh, branch, refused, power)
            return tuple(refused)
        except CloneFailed as exc:
            named = [path for path in _invalid_paths(exc.said) if path not in refused]
            if not named:
                raise
            refused += named
    raise CloneFailed(f"{git.remote.url}: git refuses more than {MAX_REFUSED_PATHS} paths of the round's tree "
                      f"({', '.join(refused[:3])}, ...); nothing was kept")


def _power_files_by_path(git: "Git", clone: Path, branch: str, refused: list[str],
                         power: tuple[str, ...] = (POWER_DETAIL,)) -> None:
    """In a tree checked out by pathspec (its sparse checkout cannot be applied again): each power
    run's spl.txt and detail log (and `power`'s timezone files), by their paths in the tree's listing
    (a blobless clone holds every folder listing). A power file git refuses too leaves its run without
    it: its figure is then a quarantine record naming the missing file."""
    listed = set((_answer(["ls-tree", "-r", "-z", "--name-only", branch], clone) or "").split("\0"))
    spls = sorted(path for path in listed if SPL_PATH.fullmatch(path) and path not in refused)
    details = [f"{spl.rsplit('/', 3)[0]}/{name}" for spl in spls for name in power]
    wanted = spls + [path for path in details if path in listed and path not in refused]
    if not wanted:
        return
    try:
        git(["-C", str(clone), "checkout", "--ignore-skip-worktree-bits", branch, "--",
             *(f":(literal){path}" for path in wanted)])
    except CloneFailed as exc:
        if not _invalid_paths(exc.said):
            raise


def _invalid_paths(said: str) -> list[str]:
    """The paths git names in 'error: invalid path ...' lines."""
    return re.findall(r"^error: invalid path '(.+?)'$", said, re.MULTILINE)


def _whole_clone_of(dest: Path, remote: GitRemote, branch: str) -> bool:
    """The clone at `dest` was made whole from `remote`'s URL, and holds nothing a clone of ours does
    not: no lock a stopped git left, no configuration but what clone, sparse-checkout and fetch write
    (a planted core.fsmonitor or remote.origin.uploadpack would run a command), its origin the same
    URL, its sparse checkout set and HEAD a commit. Anything else is cloned again, never fetched into."""
    git_dir = dest / ".git"
    if not git_dir.is_dir() or git_dir.is_symlink():
        return False
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


@dataclass(frozen=True)
class Git:
    """git run against one remote, within the run's network budget."""
    remote: GitRemote
    budget: NetworkBudget

    def check_connects(self) -> None:
        """An http(s) server (or the proxy git will use for it) takes a connection within the connect
        timeout, before git waits its own 300 s for one."""
        if not self.remote.url.lower().startswith(("http://", "https://")):
            return  # ssh bounds its own connection (ConnectTimeout); file:// makes none
        hop = first_hop(self.remote.url, _answer(["config", "--get-urlmatch", "http.proxy", self.remote.url]) or None)
        if hop is not None and not connects_within(hop, self.budget.connect):
            raise CloneFailed(f"{self.remote.url}: {hop[0]}:{hop[1]} took no connection within {self.budget.connect} s "
                              "(MLPERF_GIT_CONNECT_TIMEOUT); nothing was cloned")

    def __call__(self, arguments: list[str]) -> str:
        """Run git in its own process group; its stderr (progress and warnings) when it succeeds, else
        CloneFailed with it. The group is ended with the run: past the deadline, on an interrupt or
        any error."""
        if self.budget.left() <= 0:
            raise CloneFailed(self._past_deadline(arguments))
        try:
            process = subprocess.Popen(["/bin/sh", "-c", _GROUP_LEADER, "git-group", "git", *arguments],
                                       stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       text=True, env=_environment(self.remote, self.budget), start_new_session=True,
                                       preexec_fn=die_with_parent(os.getpid(), signal.SIGTERM))
        except FileNotFoundError as exc:
            raise CloneFailed("a shell (/bin/sh) is needed to run git") from exc
        try:
            _, said = process.communicate(timeout=self.budget.left())
        except subprocess.TimeoutExpired as exc:
            stop_process_group(process, signal.SIGTERM, STOP_GRACE)
            raise CloneFailed(self._past_deadline(arguments)) from exc
        except BaseException:
            stop_process_group(process, signal.SIGTERM, STOP_GRACE)
            raise
        said = _without_secret(said, self.remote)
        if process.returncode == 127 and "not found" in said:
            raise CloneFailed("git is not installed: it clones the trees of rounds with no published table")
        if process.returncode != 0:
            raise CloneFailed(_failure(arguments, self.remote, said), said)
        return said

    def _past_deadline(self, arguments: list[str]) -> str:
        return (f"git {_shown(arguments, self.remote)} of {self.remote.url} was stopped: the run's git work took "
                f"longer than {self.budget.deadline:g} s (MLPERF_GIT_DEADLINE); nothing of it was kept")


def _failure(arguments: list[str], remote: GitRemote, said: str) -> str:
    said = " ".join(_CLONING_INTO.sub("", said).split())[-400:]  # the temporary folder is no news to anyone
    lowered = said.lower()
    if "filter" in lowered and "not" in lowered:
        said += " (the server must allow partial clones: uploadpack.allowFilter)"
    if "authentication failed" in lowered or "could not read username" in lowered:
        said += (" (the token given was refused" if remote.token else " (no token was given") + \
            f": give one as user:token@ in the URL or in {TOKEN_ENV})"
    if "operation too slow" in lowered:
        said += " (MLPERF_GIT_LOW_SPEED_LIMIT and MLPERF_GIT_LOW_SPEED_TIME bound a stalled transfer)"
    elif "timed out" in lowered:
        said += " (MLPERF_GIT_CONNECT_TIMEOUT bounds a connection and, over ssh, the server's first words)"
    return f"git {_shown(arguments, remote)} failed for {remote.url}: {said}"


def _shown(arguments: list[str], remote: GitRemote) -> str:
    """The git command as a message shows it: no local path, no URL."""
    return " ".join(a for a in arguments if not a.startswith("/") and a not in (remote.url, "--"))[:120]


def _without_secret(text: str, remote: GitRemote) -> str:
    return text.replace(remote.token, "REDACTED") if remote.token else text


def _environment(remote: GitRemote | None, budget: NetworkBudget | None = None) -> dict:
    """git's environment: never a prompt; only the allowed transports; no hooks, no background
    maintenance, no symbolic links in a checkout; the run's network bounds and its own ssh command
    (none of the user's); no credential helper of the user's (one could store the token on disk),
    and, when there are credentials, one that hands them to the URL's host from this environment."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_CONFIG_", "GIT_HTTP_LOW_SPEED_")) and k not in (TOKEN_ENV, USERNAME_ENV, *_SSH_CHOOSERS)}
    env.update(GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="true", SSH_ASKPASS="true", GIT_ALLOW_PROTOCOL=ALLOWED_PROTOCOLS)
    if budget is not None:
        env.update(budget.environment())
    config = [("credential.helper", ""), ("protocol.ext.allow", "never"), ("core.hooksPath", os.devnull),
              ("maintenance.auto", "false"), ("gc.auto", "0"),  # no git left behind in the background
              ("core.symlinks", "false"),  # a link in the remote tree is checked out as a file holding its target
              ("ssh.variant", "ssh")]  # GIT_SSH_COMMAND's options as OpenSSH reads them, whatever the user's config says
    scope = remote.credential_scope() if remote is not None and remote.token else None
    if scope:
        config.append((f"credential.{scope}.helper", _CREDENTIAL_HELPER))
        env.update({USERNAME_ENV: remote.username or "git", TOKEN_ENV: remote.token})
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for n, (key, value) in enumerate(config):
        env[f"GIT_CONFIG_KEY_{n}"], env[f"GIT_CONFIG_VALUE_{n}"] = key, value
    return env
