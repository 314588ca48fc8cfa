"""Prefect's own floor: a flow of eight trivial tasks, run whole-process (bench/orchestration_bench.py)."""
from prefect import flow, task
from prefect.task_runners import ThreadPoolTaskRunner


@task
def one(n: int) -> int:
    return n


@flow(name="trivial-eight-tasks", task_runner=ThreadPoolTaskRunner(max_workers=4))
def eight() -> int:
    return sum(f.result() for f in [one.submit(n) for n in range(8)])


if __name__ == "__main__":
    assert eight() == 28
