"""Prefect's own floor: a flow of eight trivial tasks, run whole-process (bench/orchestration_bench.py).

    trivial_flow.py                 Prefect's defaults
    trivial_flow.py --as-mlperf-wh  with what `mlperf-wh` does for its own runs: the garbage collector
                                    paused while modules load (warehouse/startup.py) and no flow-run
                                    heartbeats (flows/local_runs.py), to compare like with like
"""
import sys

AS_CLI = "--as-mlperf-wh" in sys.argv
if AS_CLI:
    import gc
    gc.disable()

from prefect import flow, task  # noqa: E402
from prefect.task_runners import ThreadPoolTaskRunner  # noqa: E402


@task
def one(n: int) -> int:
    return n


@flow(name="trivial-eight-tasks", task_runner=ThreadPoolTaskRunner(max_workers=4))
def eight() -> int:
    return sum(f.result() for f in [one.submit(n) for n in range(8)])


if __name__ == "__main__":
    if AS_CLI:
        from pathlib import Path
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from flows.local_runs import run_here
        gc.freeze()
        gc.enable()
        assert run_here(eight) == 28
    else:
        assert eight() == 28
