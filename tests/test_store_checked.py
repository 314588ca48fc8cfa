"""One checked warehouse (issue 56, item 5): a run checks its warehouse's paths once, at its start, and
hands the checked warehouse (warehouse.store.checked) to every step; db.connect, lock.writer and
publish do not check it again. What the handle must not hide: the lock is still opened without
following a link at every take, a run that waited for another writer checks again, and the published
copy, which a run replaces, is checked again when it changed since."""
from __future__ import annotations

import dataclasses
import threading
from collections import Counter
from pathlib import Path

import pytest

from tests.conftest import MIRROR
from tests.trees_layout import TREES
from warehouse.errors import WarehouseUnavailable
from warehouse.store import db, lock, paths
from warehouse.store.checked import CheckedWarehouse, checked
from warehouse.store.publish import publish

CHECKS = ("refuse_not_duckdb", "refuse_planted", "refuse_foreign_published_copy")


@pytest.fixture
def checks(monkeypatch) -> Counter:
    """(check, path) -> how often paths.py ran it. check_warehouse and check_publishable call these
    through the module, so every caller is counted, whatever it imported."""
    counted: Counter = Counter()
    for name in CHECKS:
        def counting(path, _check=getattr(paths, name), _name=name):
            counted[_name, Path(path).name] += 1
            return _check(path)
        monkeypatch.setattr(paths, name, counting)
    return counted


def once_each(name: str) -> Counter:
    return Counter({(check, path): 1 for check, path in
                    [("refuse_not_duckdb", name), ("refuse_planted", name),
                     ("refuse_foreign_published_copy", name.replace(".duckdb", ".read.duckdb"))]})


@pytest.mark.slow
def test_a_backfill_checks_its_warehouse_once_new_or_loaded(plain_cli, checks, tmp_path):
    db_file = tmp_path / "w.duckdb"
    for run in ([], ["--force"]):  # a new warehouse, then a loaded one (the run's first look included)
        code, _, err = plain_cli("backfill", "--rounds", "v6.0", "--source", MIRROR, "--db", db_file, *run)
        assert code == 0, err
        assert checks == once_each("w.duckdb"), run  # main: the file and what is beside it five times each
        checks.clear()
    code, out, err = plain_cli("backfill", "--rounds", "v6.0", "--source", MIRROR, "--db", db_file)
    assert code == 0 and "unchanged" in out, err
    assert checks == once_each("w.duckdb")


@pytest.mark.slow
def test_a_trees_run_checks_its_warehouse_once(plain_cli, checks, tmp_path):
    code, _, err = plain_cli("trees", "--rounds", "v0.5", "--source", TREES, "--db", tmp_path / "w.duckdb")
    assert code == 0, err
    assert checks == once_each("w.duckdb")  # main: six times each, at the lock and at each connect


@pytest.mark.unit
def test_a_checked_warehouse_is_made_only_by_checking(tmp_path):
    csv = tmp_path / "w.csv"
    csv.write_text("round,result\nv6.0,1\n")
    with pytest.raises(WarehouseUnavailable, match="not a DuckDB warehouse file"):
        checked(csv)
    handle = checked(tmp_path / "w.duckdb")
    assert checked(handle) is handle and str(handle) == str(tmp_path / "w.duckdb")
    with pytest.raises(WarehouseUnavailable, match="not a DuckDB warehouse file"):
        dataclasses.replace(handle, path=str(csv))


@pytest.mark.unit
def test_a_handle_is_opened_unchecked_and_a_path_is_checked(checks, tmp_path):
    handle = checked(tmp_path / "w.duckdb")
    checks.clear()
    with lock.writer(handle, "test") as held, db.connect(held.warehouse):
        publish(held.warehouse)
    assert held.warehouse is handle and checks == Counter()
    with lock.writer(str(handle), "test") as held, db.connect(str(handle)):
        publish(held.warehouse)
    assert checks == Counter({("refuse_not_duckdb", "w.duckdb"): 2, ("refuse_planted", "w.duckdb"): 2,
                              ("refuse_foreign_published_copy", "w.read.duckdb"): 1})


@pytest.mark.unit
def test_a_lock_link_planted_after_the_check_is_never_written_through(tmp_path):
    handle = checked(tmp_path / "w.duckdb")
    victim = tmp_path / "settings.conf"
    victim.write_text("listen = 0.0.0.0\n")
    Path(f"{handle}.lock").symlink_to(victim)
    with pytest.raises(WarehouseUnavailable, match="the writer lock is a symlink"):
        with lock.writer(handle, "test"):
            pass
    assert victim.read_text() == "listen = 0.0.0.0\n"


@pytest.mark.unit
def test_a_published_copy_replaced_after_the_check_is_checked_again_and_kept(tmp_path):
    handle = checked(tmp_path / "w.duckdb")
    with lock.writer(handle, "test"), db.connect(handle):
        pass
    copy = paths.published_path(str(handle))
    copy.write_text("round,result\nv6.0,1\n")  # after the check, before the publish
    with pytest.raises(WarehouseUnavailable, match="not a copy the warehouse wrote"):
        publish(handle)
    assert copy.read_text() == "round,result\nv6.0,1\n"
    copy.unlink()
    assert publish(handle) == copy and paths.has_duckdb_header(copy)  # still as checked: nothing there


@pytest.mark.unit
def test_a_run_that_waited_for_another_writer_checks_again(tmp_path, monkeypatch):
    """The writer it waited for may have left anything: a WAL planted while it waited is refused."""
    monkeypatch.setenv("MLPERF_WRITER_WAIT", "10")
    handle = checked(tmp_path / "w.duckdb")
    waiting, refused = threading.Event(), []

    def second_run():
        try:
            with lock.writer(handle, "second", on_wait=lambda _: waiting.set()):
                pass
        except WarehouseUnavailable as exc:
            refused.append(str(exc))
    with lock.writer(handle, "first"):
        second = threading.Thread(target=second_run)
        second.start()
        assert waiting.wait(10)
        Path(f"{handle}.wal").symlink_to(tmp_path / "elsewhere")
    second.join(10)
    assert refused and "w.duckdb.wal is not a write-ahead log DuckDB wrote" in refused[0]


# --- issue 61 item 6: the handle keeps the file it checked ------------------------------------------

def swapped_for_a_link(handle: CheckedWarehouse, other: Path) -> None:
    """The warehouse file moved away and a link to another warehouse put at its path, after the check."""
    Path(handle.path).rename(f"{handle.path}.moved")
    Path(handle.path).symlink_to(other)


def a_warehouse(path: Path) -> Path:
    with db.connect(str(path)) as con:
        con.execute("CREATE TABLE mark AS SELECT 'other' AS whose")
    return path


@pytest.mark.unit
def test_a_warehouse_file_swapped_for_a_link_after_the_check_is_neither_opened_nor_published(tmp_path):
    other = a_warehouse(tmp_path / "other.duckdb")
    handle = checked(a_warehouse(tmp_path / "w.duckdb"))
    before = other.read_bytes()
    swapped_for_a_link(handle, other)
    with pytest.raises(WarehouseUnavailable, match="the warehouse file was replaced while the run used it"):
        db.connect(handle)
    with pytest.raises(WarehouseUnavailable, match="the warehouse file was replaced while the run used it"):
        publish(handle)
    assert other.read_bytes() == before
    assert not paths.published_path(str(handle)).exists() and not paths.published_path(str(other)).exists()


def test_a_backfill_whose_warehouse_is_swapped_after_its_check_writes_neither(tmp_path, shared_warehouse):
    """The backfill flow as the CLI starts it, with the warehouse the command checked: the file was
    swapped for a link to another warehouse between the check and the load (1.5 s into a backfill)."""
    import shutil

    from flows.ingest import backfill
    from flows.local_runs import run_here
    from tests.faults import digest
    from warehouse.identity.rounds import load_registry
    other = tmp_path / "other.duckdb"
    shutil.copyfile(shared_warehouse, other)
    before = digest(other)
    handle = checked(a_warehouse(tmp_path / "w.duckdb"))
    swapped_for_a_link(handle, other)
    with pytest.raises(WarehouseUnavailable, match="replaced while the run used it"):
        run_here(backfill, [load_registry()["v6.0"]], str(MIRROR), handle, force=True)
    assert digest(other) == before
    assert not paths.published_path(str(other)).exists()


@pytest.mark.unit
def test_a_new_warehouse_is_the_file_from_its_first_connect_on(tmp_path):
    handle = checked(tmp_path / "w.duckdb")  # nothing there yet: the run makes it
    with db.connect(handle):
        pass
    with db.connect(handle):  # the file it made
        pass
    Path(handle.path).rename(tmp_path / "moved.duckdb")
    a_warehouse(tmp_path / "w.duckdb")
    with pytest.raises(WarehouseUnavailable, match="replaced while the run used it"):
        db.connect(handle)
