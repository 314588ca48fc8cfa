"""Run the benchmarks, one section after another: `make bench` (.venv/bin/python bench/run.py).

    .venv/bin/python bench/run.py              every section
    .venv/bin/python bench/run.py ingest       only the named sections

To add a benchmark: write bench/<name>_bench.py with a `main(argv) -> int` (0 on success) that
prints plain-text lines, each measurement beside its target, and append (name, module.main) to
SECTIONS below. Every guard's verdict is the word ok or MISSED on its line (pairs.line and the sections'
own lines); this file alone judges them: a line holding MISSED ends its section "guard missed" and
`make bench` exits 1, and a section returns non-zero only for its own error (it printed MISSED and
then "ok" before this rule).
"""
from __future__ import annotations

import io
import re
import sys
import time
import traceback
from contextlib import redirect_stdout
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the bench modules, however run.py is started

import core_path_bench  # noqa: E402
import export_bench  # noqa: E402
import ingest_bench  # noqa: E402
import notify_bench  # noqa: E402
import old_trees_bench  # noqa: E402
import orchestration_bench  # noqa: E402
import power_bench  # noqa: E402
import query_bench  # noqa: E402
import rebuild_bench  # noqa: E402
import report_bench  # noqa: E402
import trees_bench  # noqa: E402
import views_bench  # noqa: E402

SECTIONS = [
    ("ingest", ingest_bench.main),
    ("views", views_bench.main),
    ("trees", trees_bench.main),
    ("old_trees", old_trees_bench.main),
    ("power", power_bench.main),
    ("rebuild", rebuild_bench.main),
    ("orchestration", orchestration_bench.main),
    ("core", core_path_bench.main),
    ("query", query_bench.main),
    ("export", export_bench.main),
    ("report", report_bench.main),
    ("notify", notify_bench.main),
]


MISSED = re.compile(r"\bMISSED\b")


class Watched(io.TextIOBase):
    """The section's standard output, passed on as it is written, and the lines holding a MISSED verdict."""

    def __init__(self, out):
        self.out, self.pending, self.missed = out, "", []

    def write(self, text: str) -> int:
        self.out.write(text)
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        self.missed += [line for line in lines if MISSED.search(line)]
        return len(text)

    def flush(self) -> None:
        self.out.flush()


def main(argv: list[str] | None = None) -> int:
    wanted = argv if argv else [name for name, _ in SECTIONS]
    unknown = sorted(set(wanted) - {name for name, _ in SECTIONS})
    if unknown:
        print(f"unknown section(s) {', '.join(unknown)}; known: {', '.join(n for n, _ in SECTIONS)}")
        return 2
    failed = []
    for name, run in SECTIONS:
        if name not in wanted:
            continue
        print(f"== {name}")
        started = time.perf_counter()
        watched = Watched(sys.stdout)
        try:
            with redirect_stdout(watched):
                code = run([])
        except Exception:  # a broken section is reported, and the sections after it still run
            traceback.print_exc()
            code = "an exception"
        if code != 0:
            verdict = f"FAILED ({code})"
        elif watched.missed:
            verdict = f"guard missed ({len(watched.missed)} line{'s' if len(watched.missed) > 1 else ''})"
        else:
            verdict = "ok"
        print(f"== {name}: {verdict} in {time.perf_counter() - started:.1f} s")
        if verdict != "ok":
            failed.append(name)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
