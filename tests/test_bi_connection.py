"""BI tools' direct connection: SQLAlchemy + duckdb-engine on the warehouse file, read-only."""
from __future__ import annotations

import shutil

import pytest
import sqlalchemy as sa

from warehouse.export.bi import connection_url, read_only_engine
from warehouse.views import definitions

# duckdb-engine has no SQLAlchemy type for DuckDB lists and does not reflect indexes: it says so.
pytestmark = [pytest.mark.filterwarnings("ignore:Did not recognize type 'list'"),
              pytest.mark.filterwarnings("ignore:duckdb-engine doesn't yet support reflection on indices")]


@pytest.fixture(scope="module")
def bi_copy(shared_warehouse, tmp_path_factory) -> str:
    """A copy of the session warehouse: DuckDB refuses a second in-process connection to one file
    with another configuration, and the tests compare against the original through shared_con."""
    path = tmp_path_factory.mktemp("bi") / "published.duckdb"
    shutil.copyfile(shared_warehouse, path)
    return str(path)


@pytest.fixture(scope="module")
def engine(bi_copy):
    engine = read_only_engine(bi_copy)
    yield engine
    engine.dispose()


def test_the_inspector_lists_every_mart(engine):
    inspector = sa.inspect(engine)
    marts = {v.name for v in definitions() if v.layer == "marts"}
    # the marts are views in the marts schema (sql/layers.toml); the models under them are in
    # schemas of their own, the loaded tables in main
    assert set(inspector.get_view_names(schema="marts")) == marts
    # duckdb-engine names each schema <catalog>.<schema>
    assert {"main", "marts", "base", "staging", "intermediate"} <= {
        name.split(".")[-1] for name in inspector.get_schema_names()}
    assert "int_software_gains" in inspector.get_table_names(schema="intermediate")
    assert "results" in inspector.get_table_names(schema="main")
    assert "claim_audit" in inspector.get_view_names(schema="marts")


def test_software_gains_columns_reflect_with_types_and_descriptions(engine, shared_con):
    columns = sa.inspect(engine).get_columns("software_gains", schema="marts")
    described = shared_con.execute(
        "SELECT column_name, data_type, comment FROM duckdb_columns() "
        "WHERE table_name = 'software_gains' ORDER BY column_index").fetchall()
    assert [c["name"] for c in columns] == [name for name, _, _ in described]
    assert [c["comment"] for c in columns] == [comment for _, _, comment in described]
    by_name = {c["name"]: c for c in columns}
    assert isinstance(by_name["gain"]["type"], sa.Float)
    assert isinstance(by_name["basis"]["type"], sa.String)
    assert isinstance(by_name["accelerator_count"]["type"], sa.BigInteger)
    # a view reflects too, through SQLAlchemy's Table autoload as Superset's "add dataset" does
    table = sa.Table("claim_audit", sa.MetaData(), schema="marts", autoload_with=engine)
    assert "verdict" in table.columns


def test_rows_read_and_writes_fail(engine, bi_copy, shared_con):
    expected = shared_con.execute("SELECT count(*) FROM software_gains").fetchall()[0][0]
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM software_gains")).scalar_one() == expected
        query = ("SELECT basis, submitter, accelerator, accelerator_count, benchmark, scenario, "
                 "round_from, round_to, gain FROM software_gains ORDER BY ALL")
        assert [tuple(r) for r in conn.execute(sa.text(query)).all()] == shared_con.execute(query).fetchall()
        for statement in ("CREATE TABLE intruder (a INTEGER)", "DELETE FROM int_software_gains",
                          "DROP VIEW claim_audit"):
            with pytest.raises(sa.exc.SQLAlchemyError, match="read-only"):
                conn.execute(sa.text(statement))
            conn.rollback()
    with engine.connect() as conn:
        assert conn.execute(sa.text("SELECT count(*) FROM software_gains")).scalar_one() == expected
        assert "intruder" not in sa.inspect(conn).get_table_names()
    assert connection_url(bi_copy) == f"duckdb:///{bi_copy[:-len('.duckdb')]}.read.duckdb?access_mode=read_only"


@pytest.mark.slow
def test_an_open_bi_session_never_blocks_a_load_and_sees_it_after_reconnecting(cli, mirror_server, db_file):
    """The engine opens the published copy: a backfill writes the warehouse while a BI connection
    holds a transaction open, both end well, and a new connection sees the new round."""
    assert cli("backfill", "--source", mirror_server.url, "--db", db_file, "--rounds", "v6.0")[0] == 0
    rounds = "SELECT list(DISTINCT round ORDER BY round) FROM results"
    engine = read_only_engine(db_file)
    with engine.connect() as session:
        assert session.execute(sa.text(rounds)).scalar() == ["v6.0"]
        code, out, err = cli("backfill", "--source", mirror_server.url, "--db", db_file, "--rounds", "v4.1")
        assert code == 0, (out, err)
        assert session.execute(sa.text(rounds)).scalar() == ["v6.0"]  # its own snapshot, still readable
    engine.dispose()
    engine = read_only_engine(db_file)
    with engine.connect() as session:
        assert session.execute(sa.text(rounds)).scalar() == ["v4.1", "v6.0"]
    engine.dispose()


def test_the_url_names_the_published_copy_unless_the_writer_file_is_asked_for(tmp_path):
    db_file = tmp_path / "w.duckdb"
    assert connection_url(db_file) == f"duckdb:///{tmp_path.as_posix()}/w.read.duckdb?access_mode=read_only"
    assert connection_url(db_file, writer_file=True) == f"duckdb:///{tmp_path.as_posix()}/w.duckdb?access_mode=read_only"
