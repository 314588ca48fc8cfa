"""Two whole processes timed in turn, A B A B ..., as a user runs them (bench/*_bench.py).

A run's wall time is from its start to its exit; its memory is the peak resident set of the process
(the kernel's accounting of the reaped child, as `/usr/bin/time -v` reports it: its largest process,
not the sum of its children). The ratio A/B is
taken pair by pair and its median printed: a machine that speeds up or slows down during the bench
moves both sides of a pair alike. Each side runs once untimed first (page cache, .pyc files).
"""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

REPEAT = int(os.environ.get("MLPERF_BENCH_REPEAT", "5"))


@dataclass(frozen=True)
class Run:
    wall: float
    peak_mib: float


# A run's memory is measured from a small process of its own: a child's peak resident set starts at
# its parent's size when forked, and this bench's process holds polars, DuckDB and whole warehouses.
_LAUNCHER = """
import os, sys, time
err = os.open(sys.argv[1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    os.dup2(err, 2)
    os.execvp(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - started, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run_once(args: list[str], env: dict | None = None, cwd: str | None = None) -> Run:
    """One whole process; its output is thrown away, and a failure raises with the end of stderr."""
    with tempfile.NamedTemporaryFile() as err:
        done = subprocess.run([sys.executable, "-S", "-c", _LAUNCHER, err.name, *map(str, args)], env=env,
                              cwd=cwd, capture_output=True, text=True, check=True)
        wall, peak_kib, code = done.stdout.split()
        if int(code) != 0:
            raise RuntimeError(f"{' '.join(map(str, args[:3]))}... exited {code}: "
                               f"{Path(err.name).read_text(errors='replace')[-800:]}")
    return Run(float(wall), int(peak_kib) / 1024)  # Linux: KiB


@dataclass(frozen=True)
class Pair:
    a: list[Run]
    b: list[Run]

    @property
    def wall(self) -> tuple[float, float]:
        return statistics.median(r.wall for r in self.a), statistics.median(r.wall for r in self.b)

    @property
    def peak(self) -> tuple[float, float]:
        return statistics.median(r.peak_mib for r in self.a), statistics.median(r.peak_mib for r in self.b)

    @property
    def ratio(self) -> float:
        return statistics.median(a.wall / b.wall for a, b in zip(self.a, self.b))

    @property
    def memory_ratio(self) -> float:
        return statistics.median(a.peak_mib / b.peak_mib for a, b in zip(self.a, self.b))


def alternate(a: Callable[[], Run], b: Callable[[], Run], repeat: int = REPEAT) -> Pair:
    a(), b()  # untimed
    runs = [(a(), b()) for _ in range(repeat)]
    return Pair([x for x, _ in runs], [y for _, y in runs])


def line(name: str, pair: Pair, target: float | None, memory_target: float | None = None) -> str:
    """`name: A s, MiB vs B s, MiB: ratio (target) verdict` on one line."""
    (a_wall, b_wall), (a_peak, b_peak) = pair.wall, pair.peak
    text = (f"{name}: {a_wall:.2f} s, {a_peak:.0f} MiB against {b_wall:.2f} s, {b_peak:.0f} MiB: "
            f"{pair.ratio:.2f}x the time")
    met = True
    if target is not None:
        text += f" (target <= {target:.1f}x)"
        met = pair.ratio <= target
    if memory_target is not None:
        text += f", {pair.memory_ratio:.2f}x the memory (target <= {memory_target:.1f}x)"
        met = met and pair.memory_ratio <= memory_target
    if target is None and memory_target is None:
        return text + " (no target)"
    return f"{text} {'ok' if met else 'MISSED'}"


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())
