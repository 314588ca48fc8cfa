"""The package declares what it imports, and the wheel carries what it needs at run time."""
from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import duckdb
import pytest

from tests.conftest import MIRROR
from tests.readers import connect_file

ROOT = Path(__file__).resolve().parents[1]
OUR_PACKAGES = ("warehouse", "flows", "schemas", "sql")
DISTRIBUTION = "mlperf-warehouse"


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions() -> set[str]:
    """The run-time requirements of our distribution and its optional features (`test` left out)."""
    names = set()
    for requirement in metadata.requires(DISTRIBUTION) or []:
        if 'extra == "test"' not in requirement:
            names.add(_normal(re.match(r"[A-Za-z0-9._-]+", requirement).group()))
    return names


def imported_modules() -> dict[str, list[str]]:
    """Top-level module -> the files (and lines) importing it, absolute imports only."""
    found: dict[str, list[str]] = {}
    for package in OUR_PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
                if isinstance(node, ast.Import):
                    names = [alias.name for alias in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def undeclared_imports() -> list[str]:
    providers = metadata.packages_distributions()
    declared = declared_distributions()
    problems = []
    for module, where in sorted(imported_modules().items()):
        if module in sys.stdlib_module_names or module in OUR_PACKAGES:
            continue
        distributions = {_normal(d) for d in providers.get(module, [])}
        if not distributions & declared:
            problems.append(f"{module} (from {', '.join(sorted(distributions)) or 'no installed distribution'}),"
                            f" imported at {', '.join(where)}")
    return problems


@pytest.mark.unit
def test_every_import_is_stdlib_ours_or_a_declared_dependency():
    problems = undeclared_imports()
    assert not problems, "undeclared imports (add the distribution to pyproject.toml):\n" + "\n".join(problems)


SOURCE_FILES = ("pyproject.toml", "README.md", *OUR_PACKAGES)


def _run(args: list, **kwargs) -> subprocess.CompletedProcess:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, timeout=240, **kwargs)
    assert done.returncode == 0, f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done


def build_wheel(into: Path) -> Path:
    """Our wheel, built offline (no index, no build isolation: the project venv's setuptools) from a
    copy of the sources, so the build writes nothing (build/, *.egg-info) into the checkout."""
    source = into / "source"
    source.mkdir()
    for name in SOURCE_FILES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy2
        kwargs = {"ignore": shutil.ignore_patterns("__pycache__")} if (ROOT / name).is_dir() else {}
        copy(ROOT / name, source / name, **kwargs)
    built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index", "--no-build-isolation",
                  "--wheel-dir", into / "dist", source])
    assert "warning" not in built.stderr.lower(), f"the build is not quiet:\n{built.stderr}"
    (wheel,) = (into / "dist").glob("mlperf_warehouse-*.whl")
    return wheel


def fresh_venv_with_our_wheel(wheel: Path, where: Path) -> Path:
    """A new venv (no system site packages, no pip of its own) whose dependencies come from the
    project venv through a .pth line, written BEFORE our wheel goes in with --no-deps. A path line
    in a .pth is only appended to sys.path (the .pth files it holds, such as the editable install's
    pointer to the checkout, are not read), and it comes after the venv's own site-packages: our
    packages can only be the wheel's."""
    venv = where / "venv"
    _run([sys.executable, "-m", "venv", "--without-pip", venv])
    (site_packages,) = venv.glob("lib/python*/site-packages")
    (site_packages / "project_dependencies.pth").write_text(sysconfig.get_path("purelib") + "\n")
    _run([sys.executable, "-m", "pip", "--python", venv / "bin" / "python", "install", "--quiet",
          "--no-deps", "--no-index", wheel])
    return venv


@pytest.mark.integration
@pytest.mark.slow
def test_the_wheel_installed_in_a_fresh_venv_backfills_from_another_directory(tmp_path):
    """Acceptance (issue 9): `pip install` of the built wheel into a fresh venv, then `mlperf-wh backfill`
    run from an unrelated directory, builds a warehouse whose views exist and hold verified rows.

    What proves "the wheel carries what it needs": the fresh venv sees the checkout nowhere (cwd is a
    temp dir, no PYTHONPATH, the editable install's .pth is not read), so every SQL model, reference
    table and template the run reads must come out of the wheel; we check `warehouse` and `sql` are
    imported from the venv. A wheel without sql/ would load rows but create no view (the bug the issue
    reports), and this test would fail on the missing `verified_results`. Only the third-party
    dependencies are borrowed from the project venv, which keeps the test offline and ~30 s."""
    if tuple(map(int, metadata.version("setuptools").split(".")[:2])) < (70, 1):
        pytest.fail("building the wheel offline needs setuptools>=70.1 in the project venv: run `make install`")
    venv = fresh_venv_with_our_wheel(build_wheel(tmp_path), tmp_path)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MLPERF_", "PREFECT_"))}
    env |= {"PREFECT_HOME": str(tmp_path / "prefect"), "PREFECT_SERVER_ANALYTICS_ENABLED": "false"}

    where = _run([venv / "bin" / "python", "-c", "import sql, sys, warehouse; "
                  "print(warehouse.__file__); print(sql.__file__); print(*sys.path, sep='\\n')"],
                 cwd=elsewhere, env=env).stdout.splitlines()
    assert where[0].startswith(str(venv)) and where[1].startswith(str(venv)), where[:2]
    assert str(ROOT) not in where[2:], "the checkout is on the fresh venv's sys.path"

    db_path = tmp_path / "x.duckdb"
    _run([venv / "bin" / "mlperf-wh", "backfill", "--source", MIRROR, "--db", db_path], cwd=elsewhere, env=env)
    with connect_file(str(db_path), read_only=True) as con:
        views = {name for (name,) in con.execute("SELECT table_name FROM information_schema.tables").fetchall()}
        (verified,) = con.execute("SELECT count(*) FROM verified_results").fetchone()
    shipped = {p.stem for p in (ROOT / "sql").rglob("*.sql")}
    assert shipped <= views, f"models missing from the installed warehouse: {sorted(shipped - views)}"
    assert verified > 0


OPTIONAL_MODULES = ("altair", "vl_convert", "sqlalchemy", "duckdb_engine", "distributed")
HIDE_OPTIONAL = ("import sys\n"
                 "class Hide:\n"
                 "    def find_spec(self, name, path=None, target=None):\n"
                 f"        if name.split('.')[0] in {OPTIONAL_MODULES!r}:\n"
                 "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
                 "sys.meta_path.insert(0, Hide())\n")


def without_optional_installs(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """`mlperf-wh ARGS` in a process where no optional feature's packages can be imported."""
    probe = HIDE_OPTIONAL + f"sys.argv = ['mlperf-wh', *{list(args)!r}]\nfrom warehouse.startup import entry\nentry()"
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, cwd=tmp_path)


@pytest.mark.slow
def test_the_core_runs_without_optional_installs_and_each_feature_names_its_install(tmp_path):
    from warehouse.store import db as store
    db = str(tmp_path / "w.duckdb")
    store.connect(db).close()  # a ledger load reads a warehouse: it makes none
    claims = ROOT / "examples" / "claims_v6.1_nvidia.example.toml"
    loaded = without_optional_installs(tmp_path, "claims", "load", str(claims), "--db", db)
    assert loaded.returncode == 0, loaded.stderr
    report = without_optional_installs(tmp_path, "report", "--out", str(tmp_path / "r"), "--db", db)
    assert report.returncode == 1
    assert report.stderr.strip().splitlines()[-1] == (
        "error: the report needs altair, an optional install: pip install 'mlperf-warehouse[report]' "
        "(or make install)")
