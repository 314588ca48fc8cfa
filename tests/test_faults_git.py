"""Fault suite, the git clone path (`trees --git`, issue 54): a URL is data, never an option of git;
credentials reach git through its environment and are nowhere after (outputs, warehouse, published
copy, clone, Prefect's database); an interrupted, planted or re-pointed clone is cloned again; a
stopped run leaves no git behind; a path git refuses is one quarantined file, not a failed round.
Real git, a real smart-HTTP git server with basic authentication on 127.0.0.1 (tests/git_server.py)."""
from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import SHARED
from tests.faults import one_error_line, run  # noqa: F401 - run: the CLI in this process, without Prefect
from tests.git_server import TOKEN, USER, commit_round, git_http_server, run_git
from tests.test_faults_signals import alive, processes_below, wait_gone
from tests.test_secrets import everything_in, flush_prefect_logs, prefect_database
from warehouse.identity.rounds import load_registry
from warehouse.trees.cloning import CloneFailed, clone_round

V05 = SHARED / "trees" / "inference_results_v0.5"
SYSTEM = "closed/NVIDIA/systems/T4x8.json"
SUMMARY = "closed/NVIDIA/results/T4x8/resnet/Server/performance/run_1/mlperf_log_summary.txt"
REPOSITORY = "inference_results_v0.5"
COMMAND = Path(sys.executable).parent / "mlperf-wh"


def round_files() -> dict[str, bytes]:
    return {SYSTEM: (V05 / SYSTEM).read_bytes(), SUMMARY: (V05 / SUMMARY).read_bytes(), "README.md": b"round\n"}


@pytest.fixture
def served(tmp_path) -> Path:
    """tmp_path/served/inference_results_v0.5: a bare round repository with one result."""
    return commit_round(tmp_path / "work", round_files(), tmp_path / "served" / REPOSITORY).parent


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    """A HOME whose git configuration stores every credential it is given (credential.helper=store):
    a clone that let the user's helpers see the token would leave it in ~/.git-credentials."""
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[credential]\n\thelper = store\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MLPERF_GIT_TOKEN", raising=False)
    monkeypatch.delenv("MLPERF_GIT_USERNAME", raising=False)
    return home


def files_holding(secret: str, *places: Path) -> list[str]:
    """Every file below `places` whose bytes hold `secret`."""
    found = []
    for place in places:
        for path in [place] if place.is_file() else place.rglob("*"):
            if path.is_file() and not path.is_symlink() and secret.encode() in path.read_bytes():
                found.append(str(path))
    return found


def checked_out(tree: Path) -> set[str]:
    """The files git checked out (not its .git, not the warehouse's marker)."""
    from warehouse.trees.clone_folders import MARKER
    return {p.relative_to(tree).as_posix() for p in tree.rglob("*")
            if p.is_file() and ".git" not in p.parts and p.name != MARKER}


# ---------------------------------------------------------------------------------------------
# 1. URLs are data, never options


@pytest.mark.parametrize("planted", [
    "--upload-pack=touch {marker};", "ext::sh -c touch% {marker}", "-c", "ssh://-oProxyCommand=touch%20{marker}/x",
    "file:///srv/repos?x=1", "https://alice:" + TOKEN + "@h/x#y", "ftp://h/x", "alice:" + TOKEN + "@host"])
def test_a_git_url_that_is_not_one_is_refused_before_git_runs(planted, run, tmp_path, home):
    marker = tmp_path / "marker"
    code, out, err = run("trees", "--rounds", "v0.5", "--git", planted.format(marker=marker),
                               "--db", tmp_path / "w.duckdb")
    line = one_error_line(err)
    assert code == 2 and "--git: not a git URL" in line, (code, err)
    assert not marker.exists() and TOKEN not in out + err
    assert not (tmp_path / "trees").exists()


@pytest.mark.parametrize("where", ["MLPERF_SOURCE", "the warehouse"])
def test_a_remembered_source_that_is_an_option_runs_nothing(where, run, tmp_path, monkeypatch, home):
    """The source a run falls back on, from the environment or from a shared warehouse's last load."""
    import duckdb
    marker, db_file = tmp_path / "marker", tmp_path / "w.duckdb"
    planted = f"--upload-pack=touch {marker};"
    if where == "MLPERF_SOURCE":
        monkeypatch.setenv("MLPERF_SOURCE", planted)
    else:
        monkeypatch.delenv("MLPERF_SOURCE", raising=False)
        with duckdb.connect(str(db_file)) as con:
            con.execute("CREATE TABLE sources (url VARCHAR, origin VARCHAR, loaded_at TIMESTAMP)")
            con.execute("INSERT INTO sources VALUES (?, 'official', now())",
                        [f"{planted}/inference_results_v6.0/main/summary_results.json"])
    code, out, err = run("trees", "--rounds", "v0.5", "--db", db_file)
    assert code == 1 and planted in one_error_line(err) and not marker.exists()


@pytest.mark.parametrize("plant", ["uploadpack", "fsmonitor", "hook", "ext-origin"])
def test_a_planted_clone_is_cloned_again_and_runs_nothing(plant, served, tmp_path, home):
    """The clone beside a shared warehouse is as hostile as any input: a key that makes git run a
    command, a hook, an origin of another transport. A rerun never fetches into it."""
    base, cache, marker = f"file://{served}", tmp_path / "cache", tmp_path / "marker"
    tree = clone_round(base, load_registry()["v0.5"], cache).root
    if plant == "hook":
        hook = tree / ".git" / "hooks" / "post-checkout"
        hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
        hook.chmod(0o755)
    else:
        key, value = {"uploadpack": ("remote.origin.uploadpack", f"touch {marker}; git-upload-pack"),
                      "fsmonitor": ("core.fsmonitor", f"touch {marker}; false"),
                      "ext-origin": ("remote.origin.url", f"ext::sh -c touch% {marker}")}[plant]
        run_git("config", key, value, cwd=tree)
    again = clone_round(base, load_registry()["v0.5"], cache)
    assert not marker.exists()
    assert checked_out(again.root) == {SYSTEM, SUMMARY}
    assert run_git("config", "--get", "remote.origin.url", cwd=again.root).strip() == f"{base}/{REPOSITORY}"


# ---------------------------------------------------------------------------------------------
# 2. no credential outlives its use


def test_credentials_reach_git_through_its_environment_and_stay_nowhere(served, tmp_path, home):
    with git_http_server(served) as server:
        secret_base = server.url.replace("http://", f"http://{USER}:{TOKEN}@")
        tree = clone_round(secret_base, load_registry()["v0.5"], tmp_path / "trees").root
        again = clone_round(secret_base, load_registry()["v0.5"], tmp_path / "trees").root  # a fetch, in place
        assert any("POST" in seen for seen in server.handler.requests_seen)
    assert again == tree and checked_out(tree) == {SYSTEM, SUMMARY}
    assert run_git("config", "--get", "remote.origin.url", cwd=tree).strip() == f"{server.url}/{REPOSITORY}"
    assert files_holding(TOKEN, tmp_path / "trees", home) == []
    assert not (home / ".git-credentials").exists()


def test_a_clone_refused_by_the_server_names_the_url_without_its_token(served, tmp_path, home):
    with git_http_server(served) as server:
        wrong = server.url.replace("http://", f"http://{USER}:{TOKEN}x@")
        with pytest.raises(CloneFailed) as refused:
            clone_round(wrong, load_registry()["v0.5"], tmp_path / "trees")
    message = str(refused.value)
    assert TOKEN not in message and f"{server.url}/{REPOSITORY}" in message and "the token given was refused" in message
    assert files_holding(TOKEN, tmp_path) == [] and not (tmp_path / "trees" / REPOSITORY).exists()


def test_a_token_in_the_environment_is_used_for_the_urls_host_alone(served, tmp_path, home, monkeypatch):
    monkeypatch.setenv("MLPERF_GIT_USERNAME", USER)
    monkeypatch.setenv("MLPERF_GIT_TOKEN", TOKEN)
    with git_http_server(served) as server:
        tree = clone_round(server.url, load_registry()["v0.5"], tmp_path / "trees").root
    assert checked_out(tree) == {SYSTEM, SUMMARY} and files_holding(TOKEN, tmp_path) == []


@pytest.mark.slow
def test_trees_as_a_flow_run_keeps_the_token_out_of_every_output_and_prefect(served, tmp_path, cli, home):
    from warehouse.store.publish import reader_path
    db_file = tmp_path / "w.duckdb"
    with git_http_server(served) as server:
        secret_base = server.url.replace("http://", f"http://{USER}:{TOKEN}@")
        code, out, err = cli("trees", "--rounds", "v0.5", "--git", secret_base, "--db", db_file)
        assert code == 0, (out, err)
        bad_code, bad_out, bad_err = cli("trees", "--rounds", "v0.5", "--git", secret_base + "/nothing", "--db", db_file)
    assert "v0.5: 1 result rows rebuilt from 2 files" in out
    assert bad_code == 1 and "git clone" in one_error_line(bad_err)
    assert TOKEN not in out + err + bad_out + bad_err
    published = Path(reader_path(str(db_file)))
    assert published.is_file() and (tmp_path / "trees" / REPOSITORY / ".git").is_dir()
    assert files_holding(TOKEN, db_file, published, tmp_path / "trees", home) == []
    flush_prefect_logs()
    time.sleep(0.5)
    stored = everything_in(prefect_database())
    assert f"{server.url}/{REPOSITORY}" in stored or server.url in stored  # the run and its URL are there ...
    assert TOKEN not in stored  # ... its token is not, nor in any file of Prefect's home
    assert files_holding(TOKEN, prefect_database().parent) == []


# ---------------------------------------------------------------------------------------------
# 5. interrupted clones recover


def test_a_stale_index_lock_is_not_trusted(served, tmp_path, home):
    base, cache = f"file://{served}", tmp_path / "cache"
    tree = clone_round(base, load_registry()["v0.5"], cache).root
    (tree / ".git" / "index.lock").write_text("")  # a git stopped by SIGTERM mid-checkout
    again = clone_round(base, load_registry()["v0.5"], cache).root
    assert checked_out(again) == {SYSTEM, SUMMARY} and not (again / ".git" / "index.lock").exists()


def test_a_clone_stopped_before_its_sparse_checkout_is_removed_by_the_next_run(served, tmp_path, home):
    """What a run stopped between `clone` and `sparse-checkout set` left: its marked temporary folder
    beside the clone's, with a clone that is not whole in it."""
    from warehouse.trees.clone_folders import MARKER
    cache = tmp_path / "cache"
    leftover = cache / f".{REPOSITORY}.clone-x1y2"
    run_git("clone", "-q", "--filter=blob:none", "--sparse", "--no-checkout", "--depth", "1", "--",
            f"file://{served}/{REPOSITORY}", str(leftover / REPOSITORY))
    (leftover / MARKER).write_text('{"made_by": "mlperf-warehouse", "round": "v0.5"}')
    tree = clone_round(f"file://{served}", load_registry()["v0.5"], cache).root
    assert checked_out(tree) == {SYSTEM, SUMMARY}
    assert sorted(p.name for p in cache.iterdir()) == [f".{REPOSITORY}.lock", REPOSITORY]


def test_a_rerun_with_another_url_clones_from_it(served, tmp_path, home):
    other = commit_round(tmp_path / "other-work", {**round_files(), "closed/X/systems/other.json": b"{}"},
                         tmp_path / "other" / REPOSITORY).parent
    cache = tmp_path / "cache"
    clone_round(f"file://{served}", load_registry()["v0.5"], cache)
    tree = clone_round(f"file://{other}", load_registry()["v0.5"], cache).root
    assert "closed/X/systems/other.json" in checked_out(tree)
    assert run_git("config", "--get", "remote.origin.url", cwd=tree).strip() == f"file://{other}/{REPOSITORY}"


def test_a_run_waits_for_another_runs_clone_of_the_same_round(served, tmp_path, home):
    """Two runs at once: the second would otherwise remove the first's temporary clone as a leftover."""
    import fcntl
    import threading
    cache = tmp_path / "cache"
    cache.mkdir()
    done: list = []
    with open(cache / f".{REPOSITORY}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        (cache / f".{REPOSITORY}.clone-inflight").mkdir()
        second = threading.Thread(target=lambda: done.append(clone_round(f"file://{served}", load_registry()["v0.5"], cache)))
        second.start()
        second.join(1.0)
        assert second.is_alive() and (cache / f".{REPOSITORY}.clone-inflight").is_dir()
    second.join(30)
    assert checked_out(done[0].root) == {SYSTEM, SUMMARY}


def test_a_clone_replaced_by_a_link_is_left_and_never_fetched_into(served, tmp_path, home):
    """A link is not a folder the warehouse made: it stays, its target untouched; the clone goes beside it."""
    from warehouse.trees.clone_folders import BESIDE
    elsewhere = clone_round(f"file://{served}", load_registry()["v0.5"], tmp_path / "elsewhere").root
    before = {p: p.stat().st_mtime_ns for p in elsewhere.rglob("*")}
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / REPOSITORY).symlink_to(elsewhere)
    tree = clone_round(f"file://{served}", load_registry()["v0.5"], cache).root
    assert tree == cache / f"{REPOSITORY}{BESIDE}" and checked_out(tree) == {SYSTEM, SUMMARY}
    assert (cache / REPOSITORY).readlink() == elsewhere
    assert {p: p.stat().st_mtime_ns for p in elsewhere.rglob("*")} == before


def test_a_link_planted_as_the_lock_is_refused_in_one_line(served, tmp_path, home):
    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / f".{REPOSITORY}.lock").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(CloneFailed, match="cannot be the clone's lock file"):
        clone_round(f"file://{served}", load_registry()["v0.5"], cache)
    assert not (tmp_path / "elsewhere").exists()


def test_an_invalid_path_in_the_remote_tree_is_one_quarantined_file(served, tmp_path, home):
    """Tree entries git refuses to check out ('.git', '..') fail `git checkout` whole; the round's
    other files are still checked out and loaded. One among the files the rebuild reads is
    quarantined by its path; one elsewhere is not read, as any file outside the sparse set."""
    from warehouse.trees.cloning import REFUSED_BY_GIT
    work = tmp_path / "work"

    def mktree(listing: str) -> str:
        return subprocess.run(["git", "mktree"], input=listing, text=True, cwd=work, capture_output=True,
                              check=True).stdout.strip()

    def replaced(folder: str, child: str, tree: str) -> str:
        return run_git("ls-tree", f"HEAD:{folder}", cwd=work).replace(
            run_git("rev-parse", f"HEAD:{child}", cwd=work).strip(), tree)
    blob = subprocess.run(["git", "hash-object", "-w", "--stdin"], input=b"{}", cwd=work, capture_output=True,
                          check=True).stdout.decode().strip()
    hidden_file = mktree(f"100644 blob {blob}\tx.json\n")
    hidden_systems = mktree(f"040000 tree {hidden_file}\tsystems\n")
    systems = mktree(run_git("ls-tree", "HEAD:closed/NVIDIA/systems", cwd=work) + f"100644 blob {blob}\t.git\n")
    nvidia = mktree(replaced("closed/NVIDIA", "closed/NVIDIA/systems", systems))
    closed = mktree(f"040000 tree {nvidia}\tNVIDIA\n040000 tree {hidden_systems}\t.git\n")
    root = mktree(replaced("", "closed", closed))
    commit = run_git("-c", "user.name=t", "-c", "user.email=t@t", "commit-tree", root, "-m", "odd", cwd=work).strip()
    run_git("push", "-q", "-f", str(served / REPOSITORY), f"{commit}:refs/heads/main", cwd=work)
    raw, reasons = one_quarantined_file(served, tmp_path / "w.duckdb")
    assert "closed/.git/systems/x.json" in raw and reasons == [REFUSED_BY_GIT]


def one_quarantined_file(served: Path, db_file: Path) -> tuple[str, list[str]]:
    """Rebuild v0.5 from the repository served at `served`: one row loads, one file is quarantined;
    that file's record and reasons."""
    from tests.readers import connect_file
    from warehouse.trees.run import rebuild_rounds
    clones = {"v0.5": clone_round(f"file://{served}", load_registry()["v0.5"], db_file.parent / "trees")}
    [done] = rebuild_rounds([load_registry()["v0.5"]], "", str(db_file), workers=1, clones=clones)
    assert (done.rows, done.quarantined, done.missing) == (1, 1, None)
    with connect_file(str(db_file), read_only=True) as con:
        [(raw, reasons)] = con.execute("SELECT raw_record, reasons FROM quarantine").fetchall()
    return raw, reasons


def test_a_file_name_that_is_not_utf8_is_one_quarantined_file(tmp_path, home):
    """Linux names are bytes; a name that is not UTF-8 would fail the whole round where its path is
    hashed and stored."""
    from warehouse.trees.cloning import NOT_UTF8
    odd = os.fsdecode(b"closed/NVIDIA/systems/T4x8-\xff.json")
    served = commit_round(tmp_path / "work", {**round_files(), odd: (V05 / SYSTEM).read_bytes()},
                          tmp_path / "served" / REPOSITORY).parent
    raw, reasons = one_quarantined_file(served, tmp_path / "w.duckdb")
    assert "T4x8-\\\\xff.json" in raw and reasons == [NOT_UTF8]


def test_a_link_in_the_remote_tree_is_checked_out_as_a_file_never_followed(tmp_path, home):
    """A symbolic link committed at a system description's path, to a file of this machine: the
    checkout holds a plain file with the link's text, quarantined; the machine's file is never read."""
    from warehouse.trees.run import rebuild_rounds
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET\n")
    work = tmp_path / "work"
    bare = commit_round(work, round_files(), tmp_path / "served" / REPOSITORY)
    os.symlink(secret, work / "closed/NVIDIA/systems/leak.json")
    run_git("add", "-A", cwd=work)
    run_git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "link", cwd=work)
    run_git("push", "-q", "--", str(bare), "main", cwd=work)
    db_file = tmp_path / "w.duckdb"
    clones = {"v0.5": clone_round(f"file://{bare.parent}", load_registry()["v0.5"], tmp_path / "trees")}
    [done] = rebuild_rounds([load_registry()["v0.5"]], "", str(db_file), workers=1, clones=clones)
    tree = tmp_path / "trees" / REPOSITORY
    assert not any(p.is_symlink() for p in tree.rglob("*")) and (done.rows, done.quarantined) == (1, 1)
    assert files_holding("TOPSECRET", tmp_path / "trees", db_file) == []


# ---------------------------------------------------------------------------------------------
# git ends with the run


def git_processes_below(pid: int) -> set[int]:
    return processes_below(pid, b"git")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_run_stopped_mid_clone_leaves_no_git_behind(signum, served, tmp_path, home):
    env = {**os.environ, "PREFECT_HOME": str(tmp_path / "prefect"), "MLPERF_PREFECT_TEMPORARY_SERVER": "0"}
    env.pop("PREFECT_API_URL", None)
    with git_http_server(served, credentials=None, stall=60) as server:
        process = subprocess.Popen([str(COMMAND), "trees", "--rounds", "v0.5", "--git", server.url,
                                    "--db", str(tmp_path / "w.duckdb")], env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        give_up = time.monotonic() + 60
        while not server.handler.requests_seen:  # git is waiting on the stalled server
            assert process.poll() is None and time.monotonic() < give_up, process.communicate()
            time.sleep(0.1)
        gits = git_processes_below(process.pid)
        assert any("remote-http" in Path(f"/proc/{p}/cmdline").read_text() for p in gits if alive(p)), gits
        process.send_signal(signum)
        _, err = process.communicate(timeout=30)
        assert wait_gone(gits, 5) == set()
    if signum != signal.SIGKILL:
        assert process.returncode == 128 + signum and len(err.strip().splitlines()) == 1, err
        assert list((tmp_path / "trees").glob(f".{REPOSITORY}.clone-*")) == []  # the partial clone was removed


def test_a_clone_past_its_time_limit_is_ended_with_its_group(served, tmp_path, home, monkeypatch):
    monkeypatch.setenv("MLPERF_GIT_DEADLINE", "1")
    with git_http_server(served, credentials=None, stall=30) as server:
        started = time.monotonic()
        with pytest.raises(CloneFailed, match=r"took longer than 1 s \(MLPERF_GIT_DEADLINE\)"):
            clone_round(server.url, load_registry()["v0.5"], tmp_path / "trees")
        assert time.monotonic() - started < 10
    remote_helpers = [p for p in Path("/proc").iterdir() if p.name.isdigit() and alive(int(p.name))
                      and server.url.encode() in _cmdline(p)]
    assert remote_helpers == [] and list((tmp_path / "trees").glob(f"*{REPOSITORY}.clone-*")) == []


def _cmdline(process: Path) -> bytes:
    try:
        return (process / "cmdline").read_bytes()
    except OSError:
        return b""


# ---------------------------------------------------------------------------------------------
# the forms a git URL may take


@pytest.mark.unit
@pytest.mark.parametrize("given, url, credentials", [
    ("https://github.com/mlcommons", "https://github.com/mlcommons", (None, None)),
    (f"https://{USER}:{TOKEN}@Git.Example:8443/org", "https://git.example:8443/org", (USER, TOKEN)),
    (f"http://{USER}:{TOKEN}@[::1]:8080/org", "http://[::1]:8080/org", (USER, TOKEN)),
    ("ssh://git@git.example/org", "ssh://git@git.example/org", (None, None)),
    ("git@github.com:mlcommons", "git@github.com:mlcommons", (None, None)),
    ("file:///srv/repositories", "file:///srv/repositories", (None, None)),
])
def test_an_accepted_git_url_keeps_no_credential(given, url, credentials):
    from warehouse.trees.git_remote import parse_git_url
    remote = parse_git_url(given)
    assert (remote.url, (remote.username, remote.token)) == (url, credentials)
    assert TOKEN not in repr(remote)


@pytest.mark.unit
@pytest.mark.parametrize("given", [
    "", "-c", "--upload-pack=x", "ext::sh -c x", "fd::3", "https://h/x y", "https://h/x\n", "ssh://-oProxyCommand=x/y",
    "ssh://h/-x", "ssh://alice:pw@h/x", "git@-h:x", "git@h:-x", "h:x", "file://remote/x", "file:///", "https:///x",
    "https://h:port/x", "https://h/x?token=1", "git+ssh://h/x", "javascript://h/x", "/srv/repositories"])
def test_anything_else_is_refused_without_being_repeated(given):
    from warehouse.trees.git_remote import ACCEPTED, GitUrlRefused, parse_git_url
    with pytest.raises(GitUrlRefused) as refused:
        parse_git_url(given)
    assert str(refused.value).startswith("--git: not a git URL")
    said = str(refused.value).replace(ACCEPTED, "").replace("file:///path/to/repositories", "")
    assert len(given) < 3 or given not in said
