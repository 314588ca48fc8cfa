"""The locked install (requirements/, `make lock`): every dependency pyproject.toml asks for is pinned to
a version it accepts, with its hashes, in the lock of the environment that needs it."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

pytestmark = pytest.mark.unit

PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
# a pin: `name==version` then, up to the next pin, its `--hash=sha256:` lines (markers may follow the version)
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^ ;\\]+)", re.M)


def pins(lock: str) -> dict[str, list[tuple[str, int]]]:
    return pins_of((ROOT / "requirements" / lock).read_text(encoding="utf-8"))


def pins_of(text: str) -> dict[str, list[tuple[str, int]]]:
    """name -> [(version, hashes)] (a universal lock may pin one name twice, under exclusive markers)."""
    found: dict[str, list[tuple[str, int]]] = {}
    starts = list(PIN.finditer(text))
    for match, following in zip(starts, starts[1:] + [None]):
        body = text[match.end():following.start() if following else len(text)]
        found.setdefault(canonicalize_name(match.group(1)), []).append(
            (match.group(2), body.count("--hash=sha256:")))
    return found


def wanted(extra: str) -> list[Requirement]:
    """pyproject's requirements of an install with `extra`, the project's own extras expanded."""
    asked, seen, todo = [Requirement(r) for r in PROJECT["dependencies"]], set(), [extra]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for line in PROJECT["optional-dependencies"][name]:
            requirement = Requirement(line)
            if canonicalize_name(requirement.name) == canonicalize_name(PROJECT["name"]):
                todo += sorted(requirement.extras)
            else:
                asked.append(requirement)
    return asked


def out_of_date(locked: dict, asked: list[Requirement]) -> tuple[list[str], list[str]]:
    """(requirements the lock does not pin, pins a requirement refuses)."""
    missing = [str(r) for r in asked if canonicalize_name(r.name) not in locked]
    refused = [f"{r.name}=={version}" for r in asked for version, _ in locked.get(canonicalize_name(r.name), [])
               if not r.specifier.contains(version, prereleases=True)]
    return missing, refused


@pytest.mark.parametrize("lock, extra", [("run.txt", "all"), ("test.txt", "test")])
def test_the_lock_pins_every_dependency_to_a_version_pyproject_accepts(lock, extra):
    assert out_of_date(pins(lock), wanted(extra)) == ([], []), f"requirements/{lock} is out of date: run `make lock`"


@pytest.mark.parametrize("lock", ["run.txt", "test.txt", "uv.txt"])
def test_every_pin_carries_its_hashes(lock):
    locked = pins(lock)
    assert locked and [name for name, versions in locked.items() if any(h == 0 for _, h in versions)] == []


def test_the_run_lock_holds_no_test_tool():
    assert {"pytest", "pandas", "hypothesis"} & set(pins("run.txt")) == set()


def test_a_stale_lock_is_caught():
    planted = "sqlalchemy==2.0.55 \\\n    --hash=sha256:00\nrich==13.0 \\\n    --hash=sha256:11\n"
    asked = [Requirement("sqlalchemy>=2.0,<2.0.55"), Requirement("rich>=13"), Requirement("typer>=0.28")]
    assert pins_of(planted) == {"sqlalchemy": [("2.0.55", 1)], "rich": [("13.0", 1)]}
    assert out_of_date(pins_of(planted), asked) == (["typer>=0.28"], ["sqlalchemy==2.0.55"])


def test_both_venvs_install_from_the_lock():
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for venv, lock in (("$(VENV)", "requirements/run.txt"), ("$(TEST_VENV)", "requirements/test.txt")):
        assert f"$(call locked_venv,{venv},{lock})" in makefile
    assert "--require-hashes" in makefile


def test_the_installed_dependencies_carry_their_bytecode():
    """`make install` and `make install-test` compile what they install: uv writes no .pyc unless told,
    and where PYTHONDONTWRITEBYTECODE is set Python writes none either, so every process compiled
    Prefect, Pandera and the rest from source again (6.1 s to import what the CLI imports, 2.3 s
    compiled). Checked on the environment running this test, which `make install-test` built."""
    import importlib.util

    import duckdb
    import pandera
    import polars
    import prefect
    import typer
    missing = [m.__name__ for m in (prefect, pandera, polars, duckdb, typer)
               if not Path(importlib.util.cache_from_source(m.__file__)).is_file()]
    assert not missing, f"installed without bytecode: {', '.join(missing)} (make install-test compiles it)"
