"""Open the published warehouse copy through a real Apache Superset, the way a BI user does.

Run with the Python of the Superset venv (`make test-superset` builds it from
tests/superset/requirements.txt); this script imports Superset and its dependencies only, never the
project. It builds a throwaway Superset (SQLite metadata database in a temporary directory, its own
SECRET_KEY, no Redis, no Celery), runs the equivalents of `superset db upgrade` and `superset init`,
creates an admin, registers the warehouse through Superset's own Database model, and then asks
Superset, not DuckDB, for:

1. the marts (every `sql/marts/*.sql` name must be a view Superset lists in the marts schema,
   which duckdb-engine names <catalog>.marts, e.g. w.marts for w.read.duckdb; the loaded tables
   are in <catalog>.main, the models under the marts in base, staging and intermediate),
2. the columns of token_economics and software_gains (Database.get_columns, what "add dataset" shows),
3. a dataset: SqlaTable.fetch_metadata() on token_economics, as the "add dataset" dialog does,
4. rows through Database.get_df (the query path of charts and the API),
5. rows through SQL Lab: POST /api/v1/sqllab/execute/ with a JWT from /api/v1/security/login,
6. that a write through that connection fails (the URI opens the file read-only).

Each step prints one line on stdout. Superset's own logging (Alembic's migration lines, warnings)
goes to superset.log in the temporary directory; the first failure prints its traceback and the
end of that log on stderr and exits 1.

    python tests/superset/check_superset.py /abs/path/w.read.duckdb --marts-dir sql/marts
"""
from __future__ import annotations

import argparse
import logging
import os
import secrets
import sys
import tempfile
import time
import traceback
from pathlib import Path

REFLECTED = ("token_economics", "software_gains")
QUERY = ("SELECT round, accelerator, benchmark, scenario, tokens_per_second_per_accelerator "
         "FROM marts.token_economics WHERE tokens_per_second_per_accelerator IS NOT NULL "
         "ORDER BY tokens_per_second_per_accelerator DESC LIMIT 5")
SQLLAB_QUERY = "SELECT round, count(*) AS results FROM marts.token_economics GROUP BY round ORDER BY round"


class CheckFailed(Exception):
    pass


def expect(condition: bool, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def say(step: str, text: str) -> None:
    print(f"[superset] {step}: {text}", flush=True)


def write_config(home: Path) -> Path:
    """A minimal superset_config.py: what `superset` reads through SUPERSET_CONFIG_PATH."""
    config = home / "superset_config.py"
    config.write_text(
        f"SECRET_KEY = {secrets.token_urlsafe(42)!r}\n"
        f"SQLALCHEMY_DATABASE_URI = {'sqlite:///' + (home / 'superset.db').as_posix()!r}\n"
        # no Redis, no Celery: caches are NullCache (Superset's default), SQL Lab runs synchronously
        "CACHE_CONFIG = {'CACHE_TYPE': 'NullCache'}\n"
        "DATA_CACHE_CONFIG = {'CACHE_TYPE': 'NullCache'}\n"
        "RATELIMIT_STORAGE_URI = 'memory://'\n"
        "TALISMAN_ENABLED = False\n"
        "WTF_CSRF_ENABLED = False\n"
        "FEATURE_FLAGS = {}\n")
    return config


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("warehouse", type=Path, help="the published copy, e.g. /tmp/x/w.read.duckdb")
    parser.add_argument("--marts-dir", type=Path, required=True,
                        help="sql/marts: each *.sql file names a mart Superset must list")
    parser.add_argument("--home", type=Path,
                        help="Superset's directory (config, metadata db, log); default a new temp dir")
    args = parser.parse_args(argv)
    warehouse = args.warehouse.resolve()
    if not warehouse.is_file():
        print(f"[superset] FAILED: no warehouse at {warehouse}", file=sys.stderr)
        return 1
    marts = sorted(p.stem for p in args.marts_dir.glob("*.sql"))
    if not marts:
        print(f"[superset] FAILED: no *.sql in {args.marts_dir}", file=sys.stderr)
        return 1

    home = args.home.resolve() if args.home else Path(tempfile.mkdtemp(prefix="superset-check-"))
    home.mkdir(parents=True, exist_ok=True)
    os.environ["SUPERSET_CONFIG_PATH"] = str(write_config(home))
    os.environ["SUPERSET_HOME"] = str(home)
    # fd 2 (Superset's and Alembic's log handlers, warnings) to a file; our own errors to the real stderr
    log_path = home / "superset.log"
    real_stderr = os.fdopen(os.dup(2), "w")
    log_file = open(log_path, "w")  # noqa: SIM115 - stays open as fd 2 until the process ends
    sys.stderr.flush()
    os.dup2(log_file.fileno(), 2)
    logging.basicConfig(level=logging.WARNING)
    say("home", f"{home} (Superset's log: {log_path})")
    step = "start"
    try:
        step = "versions"
        from importlib.metadata import version
        versions = {name: version(name) for name in
                    ("apache-superset", "duckdb", "duckdb-engine", "sqlalchemy", "pandas")}
        say(step, ", ".join(f"{k} {v}" for k, v in versions.items()))

        step = "app"
        started = time.monotonic()
        from superset.app import create_app
        app = create_app()
        say(step, f"created in {time.monotonic() - started:.1f} s, metadata db {home / 'superset.db'}")

        with app.app_context():
            from flask_migrate import upgrade
            from superset import appbuilder, db, security_manager

            step = "db upgrade"
            started = time.monotonic()
            upgrade()  # `superset db upgrade`: Superset's Alembic migrations on the metadata db
            say(step, f"migrations applied in {time.monotonic() - started:.1f} s")

            step = "init"
            appbuilder.add_permissions(update_perms=True)  # `superset init`, its two calls
            security_manager.sync_role_definitions()
            password = secrets.token_urlsafe(16)
            admin = security_manager.add_user(
                "check-admin", "Check", "Admin", "check-admin@example.invalid",
                security_manager.find_role("Admin"), password=password)
            expect(bool(admin), "could not create the admin user")
            say(step, "roles synced, admin user created")

            step = "register"
            from sqlalchemy.engine.url import make_url
            from superset.models.core import Database
            from superset.security.analytics_db_safety import check_sqlalchemy_uri
            uri = f"duckdb:///{warehouse.as_posix()}?access_mode=read_only"
            check_sqlalchemy_uri(make_url(uri))  # the check the UI and API run on a new URI
            database = Database(database_name="MLPerf warehouse", expose_in_sqllab=True)
            database.set_sqlalchemy_uri(uri)
            db.session.add(database)
            db.session.commit()
            expect(database.db_engine_spec.engine == "duckdb",
                   f"Superset picked engine spec {database.db_engine_spec.__name__}, not DuckDB's")
            say(step, f"database id {database.id}, {database.db_engine_spec.__name__}, uri {uri}")

            step = "schemas"
            # duckdb-engine names schemas <catalog>.<schema>; the file's catalog is its name up to
            # the first dot (w.read.duckdb -> w), beside DuckDB's own system and temp catalogs
            schemas = database.get_all_schema_names()
            ours = sorted(s for s in schemas if s.endswith(".marts")
                          and s.split(".")[0] not in ("system", "temp"))
            expect(len(ours) == 1, f"no single <catalog>.marts schema among {sorted(schemas)}")
            catalog = ours[0].split(".")[0]
            layers = {f"{catalog}.{name}" for name in ("main", "base", "staging", "intermediate")}
            expect(layers <= set(schemas), f"missing schemas {sorted(layers - set(schemas))}")
            schema = ours[0]
            say(step, f"{sorted(schemas)}; the warehouse's: {schema}")

            step = "list marts"
            views = {name for name, _, _ in
                     database.get_all_view_names_in_schema(catalog=None, schema=schema)}
            tables = {name for name, _, _ in
                      database.get_all_table_names_in_schema(catalog=None, schema=schema)}
            missing = sorted(set(marts) - views)
            expect(not missing, f"marts Superset does not list as views: {missing}")
            say(step, f"{len(marts)}/{len(marts)} marts listed as views "
                      f"({len(views)} views, {len(tables)} tables in {schema}): {', '.join(marts)}")

            step = "columns"
            from superset.sql.parse import Table
            for name in REFLECTED:
                columns = database.get_columns(Table(name, schema))
                expect(len(columns) > 0, f"no columns reflected for {name}")
                typed = ", ".join(f"{c['column_name']} {c['type']}" for c in columns[:6])
                say(step, f"{name}: {len(columns)} columns ({typed}, ...)")

            step = "dataset"
            from superset.connectors.sqla.models import SqlaTable
            dataset = SqlaTable(table_name="token_economics", schema=schema, database=database)
            db.session.add(dataset)
            dataset.fetch_metadata()
            db.session.commit()
            kinds = {c.column_name: c.type_generic for c in dataset.columns}
            expect(len(kinds) > 0, "the dataset has no columns")
            numeric = sorted(n for n, k in kinds.items() if k is not None and k.name == "NUMERIC")
            expect("tokens_per_second_per_accelerator" in numeric,
                   "tokens_per_second_per_accelerator is not numeric to Superset")
            say(step, f"token_economics dataset id {dataset.id}: {len(kinds)} columns, "
                      f"{len(numeric)} numeric (metrics can be built on them)")

            step = "get_df"
            df = database.get_df(QUERY, schema=schema)
            expect(len(df) > 0, "the query returned no rows")
            say(step, f"{len(df)} rows:\n{df.to_string(index=False)}")

            step = "read-only"
            try:
                database.get_df("CREATE TABLE superset_was_here AS SELECT 1 AS x", schema=schema)
            except Exception as error:  # noqa: BLE001 - the refusal is the point
                say(step, f"a write fails as it should: {type(error).__name__}: "
                          f"{str(error).splitlines()[0][:140]}")
            else:
                raise CheckFailed("a CREATE TABLE through Superset succeeded on the published copy")

            database_id = database.id

        step = "sql lab"
        client = app.test_client()
        login = client.post("/api/v1/security/login", json={
            "username": "check-admin", "password": password, "provider": "db", "refresh": False})
        expect(login.status_code == 200, f"login: HTTP {login.status_code} {login.get_data(True)[:300]}")
        token = login.get_json()["access_token"]
        response = client.post(
            "/api/v1/sqllab/execute/", headers={"Authorization": f"Bearer {token}"},
            json={"database_id": database_id, "sql": SQLLAB_QUERY, "schema": schema,
                  "runAsync": False, "client_id": secrets.token_hex(5)})
        body = response.get_json(silent=True) or {}
        expect(response.status_code == 200 and body.get("status") == "success",
               f"HTTP {response.status_code} {response.get_data(True)[:500]}")
        rows = body.get("data") or []
        expect(len(rows) > 0, "SQL Lab returned no rows")
        say(step, f"status {body['status']}, {len(rows)} rows: {rows}")

        step = "isolation"
        project = sorted(m for m in sys.modules if m == "warehouse" or m.startswith("warehouse."))
        expect(not project, f"the project was imported: {project}")
    except Exception as error:  # noqa: BLE001 - print what failed and exit non-zero
        sys.stderr.flush()
        tail = log_path.read_text(errors="replace").splitlines()[-40:]
        print("\n".join(["--- end of superset.log ---", *tail, "---"]), file=real_stderr)
        traceback.print_exc(file=real_stderr)
        print(f"[superset] FAILED at {step}: {type(error).__name__}: {error}", file=real_stderr)
        real_stderr.flush()
        return 1
    print("[superset] OK: Superset registered the published copy, listed the marts, reflected "
          "columns, built a dataset and returned rows through get_df and SQL Lab")
    return 0


if __name__ == "__main__":
    sys.exit(main())
