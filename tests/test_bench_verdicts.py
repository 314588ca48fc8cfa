"""bench/run.py judges every section's guards by one rule: the word MISSED on a printed line, wherever
it stands, ends the section "guard missed" and `make bench` exits 1; a section's own error is
FAILED; only a section with neither is ok."""
from __future__ import annotations

import importlib.util
import sys

import pytest

from tests.conftest import ROOT

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def bench_run():
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("bench_run", ROOT / "bench" / "run.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.path.remove(str(ROOT / "bench"))


def section(*lines: str, code: int = 0):
    def run(argv):
        for line in lines:
            print(line)
        return code
    return run


@pytest.mark.parametrize("lines, code, verdict", [
    (["a: 0.27 s (target < 1.5 s) ok  [best of 5]"], 0, "ok"),
    # the verdict at the end of a line (pairs.line), and in the middle of one (old_trees, trees, ingest)
    (["core path: 1.34 s: 2.62x the time (target <= 2.5x) MISSED"], 0, "guard missed (1 line)"),
    (["cold: 1.54x the time (target <= 2.0x) MISSED; median of pairs 1.57x", "b: ok"], 0, "guard missed (1 line)"),
    (["x (target < 1 s) MISSED  [note]", "y MISSED"], 0, "guard missed (2 lines)"),
    (["a line that says ok"], 1, "FAILED (1)"),
    (["MISSEDNESS is not a verdict"], 0, "ok"),
])
def test_a_section_is_judged_by_its_lines_and_its_return(bench_run, monkeypatch, capsys, lines, code, verdict):
    monkeypatch.setattr(bench_run, "SECTIONS", [("fake", section(*lines, code=code))])
    exit_code = bench_run.main(["fake"])
    out = capsys.readouterr().out
    assert all(line in out for line in lines)  # every line still reaches the screen
    ended = [line for line in out.splitlines() if line.startswith("== fake: ")]
    assert len(ended) == 1 and ended[0].split(": ", 1)[1].startswith(verdict), out
    assert exit_code == (0 if verdict == "ok" else 1)
