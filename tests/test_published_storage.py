"""MLPERF_PUBLISHED_STORAGE writes the published read-only copy in an older DuckDB storage version
(v1.0.0: DuckDB 1.x readers such as Metabase's driver open it; checked by hand with DuckDB 1.5.6,
which refuses the writer's own v2 file), holding every relation of the warehouse."""
from __future__ import annotations

import shutil

import duckdb

from warehouse.store.publish import publish
from tests.readers import connect_file


def storage_of(path) -> str:
    with duckdb.connect() as con:
        con.execute("ATTACH ? AS copy (READ_ONLY)", [str(path)])
        tags = con.execute("SELECT tags FROM duckdb_databases() WHERE database_name = 'copy'").fetchall()[0][0]
    return tags["storage_version"]


def relations(path) -> dict[str, int]:
    with connect_file(str(path), read_only=True) as con:
        names = [n for (n,) in con.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_schema = 'main' ORDER BY 1").fetchall()]
        return {n: con.execute(f'SELECT count(*) FROM "{n}"').fetchall()[0][0] for n in names}


def test_the_published_copy_in_storage_v1_holds_every_relation(shared_warehouse, tmp_path, monkeypatch):
    db_file = tmp_path / "w.duckdb"
    shutil.copyfile(shared_warehouse, db_file)
    monkeypatch.setenv("MLPERF_PUBLISHED_STORAGE", "v1.0.0")
    copy = publish(str(db_file))
    assert storage_of(copy) == "v1.0.0+" and storage_of(db_file) != "v1.0.0+"
    assert relations(copy) == relations(db_file)


def test_by_default_the_copy_is_the_writers_own_file(shared_warehouse, tmp_path, monkeypatch):
    db_file = tmp_path / "w.duckdb"
    shutil.copyfile(shared_warehouse, db_file)
    monkeypatch.delenv("MLPERF_PUBLISHED_STORAGE", raising=False)
    assert storage_of(publish(str(db_file))) == storage_of(db_file)
