"""The layers of the code, declared once in pyproject.toml ([tool.importlinter]) and checked by
import-linter: CLI over flows over export over ledger over views over ingest over identity over store
over the ground (settings, errors, schemas); no import cycles within a package. The check runs in
`make test` (this module), and a planted upward import shows it can fail."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT

LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"
PACKAGES = ("warehouse", "flows", "schemas", "sql")


def lint(root: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(LINT_IMPORTS), "--no-cache", str(root / "pyproject.toml")], cwd=root,
                          env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"},
                          capture_output=True, text=True, timeout=120)


def copy_of_the_code(tmp_path: Path) -> Path:
    for package in PACKAGES:
        shutil.copytree(ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


def test_the_code_keeps_its_layers_and_has_no_import_cycles():
    found = lint(ROOT)
    assert found.returncode == 0, found.stdout + found.stderr
    assert "Contracts: 2 kept, 0 broken." in found.stdout


def test_an_import_that_runs_upward_breaks_the_contract(tmp_path):
    # The store importing the CLI: a lower layer reaching up.
    root = copy_of_the_code(tmp_path)
    db = root / "warehouse" / "store" / "db.py"
    db.write_text(db.read_text(encoding="utf-8") + "\n\ndef _planted():\n    import warehouse.cli.app  # noqa\n",
                  encoding="utf-8")
    found = lint(root)
    assert found.returncode == 1
    assert "warehouse.store is not allowed to import warehouse.cli" in found.stdout
    assert "- warehouse.store.db -> warehouse.cli.app" in found.stdout


def test_an_import_cycle_within_a_package_breaks_the_contract(tmp_path):
    root = copy_of_the_code(tmp_path)
    catalog = root / "warehouse" / "views" / "catalog.py"
    catalog.write_text(catalog.read_text(encoding="utf-8")
                       + "\n\ndef _planted():\n    import warehouse.views.materialize  # noqa\n", encoding="utf-8")
    found = lint(root)
    assert found.returncode == 1
    assert "No import cycles among the modules of a package, at any depth BROKEN" in found.stdout
