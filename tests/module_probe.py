"""Which of some packages a command imports: one `mlperf-wh` command line in a process of its own."""
from __future__ import annotations

import ast
import subprocess
import sys


def packages_a_command_imports(words: list[str], watched: set[str]) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run `mlperf-wh WORDS` in a new interpreter -> (the finished process, the watched top-level
    packages it had imported when it exited, sorted)."""
    probe = ("import atexit, sys; atexit.register(lambda: print(sorted({m.split('.')[0] for m in sys.modules} "
             f"& set({sorted(watched)!r})))); sys.argv = ['mlperf-wh', *{[str(w) for w in words]!r}]; "
             "from warehouse.startup import entry; entry()")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    imported = ast.literal_eval(done.stdout.strip().splitlines()[-1]) if done.stdout.strip() else None
    return done, imported
