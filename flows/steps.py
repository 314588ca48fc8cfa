"""Our flows and tasks: declared without Prefect, run through Prefect or plainly, with one code path.

A command's run is a Prefect flow run when a Prefect API is configured (flows/local_runs.py). Without
one, Prefect would start its temporary server: about 4 s of CPU to import and start it, more than a
cold backfill's whole work (docs/operations-guide.md, "What a run costs"). So such a run calls the
same flow functions plainly, and each task call below becomes the task's own function, with the
retries the task declares; `submit` runs it on a thread pool of the size the flow declares. A flow
calls its tasks only through `call` and `submit`, and waits with `as_completed`, so it reads the
same either way.

`@task` and `@flow` here declare; the Prefect task or flow (`.prefect`) is built the first time a
flow run needs it. Importing any part of Prefect costs about a second (its package runs its
analytics and settings set-up on import), which a plain run, never touching Prefect, does not pay.
"""
from __future__ import annotations

import concurrent.futures
import contextvars
import functools
import inspect
import logging
import os
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable

_plain_pool: contextvars.ContextVar[concurrent.futures.ThreadPoolExecutor | None] = \
    contextvars.ContextVar("plain_pool", default=None)
_plain: contextvars.ContextVar[bool] = contextvars.ContextVar("plain", default=False)
ENTRYPOINTS = Path(__file__).with_name("entrypoints.py")  # our deployable flows, as Prefect loads them


@contextmanager
def plainly():
    """Within the block, flows and tasks called through this module run without Prefect."""
    token = _plain.set(True)
    try:
        yield
    finally:
        _plain.reset(token)


def in_plain_run() -> bool:
    return _plain.get()


class _Declared:
    """A function and the options Prefect's decorator would take; `prefect` builds the Prefect object
    once, when a flow run first needs it."""

    def __init__(self, fn: Callable, options: dict):
        functools.update_wrapper(self, fn)
        self.fn = fn
        self.options = options

    @property
    def name(self) -> str:
        return self.options.get("name", self.fn.__name__)

    def with_options(self, **changes):
        return type(self)(self.fn, {**self.options, **changes})

    @functools.cached_property
    def prefect(self):
        return self._build()

    def __call__(self, *args, **kwargs):
        return call(self, *args, **kwargs)


class TaskStep(_Declared):
    """A task: Prefect's `@task` options (name, retries, retry_delay_seconds, retry_condition_fn,
    task_run_name). Our tasks are never cached: each fetches, or writes the warehouse."""

    retries = property(lambda self: self.options.get("retries", 0))
    retry_delay_seconds = property(lambda self: self.options.get("retry_delay_seconds"))
    retry_condition_fn = property(lambda self: self.options.get("retry_condition_fn"))
    task_run_name = property(lambda self: self.options.get("task_run_name"))

    def _build(self):
        from prefect.cache_policies import NO_CACHE
        from prefect.tasks import Task
        return Task(fn=self.fn, cache_policy=NO_CACHE, **self.options)


class FlowStep(_Declared):
    """A flow: Prefect's `@flow` options (name, flow_run_name), and `max_workers`, the size of the
    thread pool its submitted tasks run on (Prefect's ThreadPoolTaskRunner)."""

    max_workers = property(lambda self: self.options.get("max_workers"))

    def _build(self):
        from flows.prefect_flow import PlainParameterFlow
        from prefect.task_runners import ThreadPoolTaskRunner
        options = {k: v for k, v in self.options.items() if k != "max_workers"}
        if self.max_workers:
            options["task_runner"] = ThreadPoolTaskRunner(max_workers=self.max_workers)
        return PlainParameterFlow(fn=self.fn, **options)

    def to_deployment(self, name: str, **options):
        """A deployment of this flow (Prefect's `to_deployment` options), at its entrypoint in
        flows/entrypoints.py: a worker or a served run loads a Prefect flow from there."""
        from prefect.deployments.runner import RunnerDeployment
        where = Path(os.path.relpath(ENTRYPOINTS.resolve(), Path.cwd().resolve())).as_posix()
        return RunnerDeployment.from_entrypoint(f"{where}:{self.fn.__name__}", name=name, **options)


def task(**options) -> Callable[[Callable], TaskStep]:
    return lambda fn: TaskStep(fn, options)


def flow(**options) -> Callable[[Callable], FlowStep]:
    return lambda fn: FlowStep(fn, options)


class RetryWhen:
    """A task's retry condition on the exception alone: Prefect asks it with the failed state, a plain
    run with the exception."""

    def __init__(self, predicate: Callable[[BaseException | None], bool]):
        self.predicate = predicate

    def __call__(self, _task, _task_run, state) -> bool:
        return self.predicate(exception_of(state))


def exception_of(state) -> BaseException | None:
    """The exception a finished state holds, or None."""
    try:
        state.result()
    except BaseException as exc:  # noqa: BLE001 - the state's own exception is what is asked about
        return exc
    return None


def call(step, *args, **kwargs):
    """step(*args, **kwargs): a Prefect task or flow call, or, in a plain run, its function (any
    other callable is called as it is)."""
    if not isinstance(step, _Declared):
        return step(*args, **kwargs)
    if not _plain.get():
        return step.prefect(*args, **kwargs)
    if isinstance(step, FlowStep):
        return run_flow_plainly(step, args, kwargs)
    return _with_retries(step, args, kwargs)


def submit(task, *args, **kwargs):
    """task.submit(...): a Prefect future, or, in a plain run, a PlainFuture on the flow's pool."""
    pool = _plain_pool.get()
    if not _plain.get():
        return task.prefect.submit(*args, **kwargs)
    if pool is None:
        raise RuntimeError(f"{task.name}: submitted outside a flow")
    context = contextvars.copy_context()
    return PlainFuture(pool.submit(context.run, _with_retries, task, args, kwargs))


def as_completed(futures):
    """Futures of either kind, as each finishes."""
    if futures and all(isinstance(f, PlainFuture) for f in futures):
        by_inner = {f.inner: f for f in futures}
        return (by_inner[done] for done in concurrent.futures.as_completed(by_inner))
    from prefect.futures import as_completed as prefect_as_completed
    return prefect_as_completed(futures)


def run_flow_plainly(flow: FlowStep, args, kwargs):
    """The flow's function here, its submitted tasks on a pool of the flow's size. An exception
    (an interrupt above all) leaves at once: tasks not started are cancelled, and a task still
    running is not waited for."""
    workers = flow.max_workers or os.cpu_count() or 1
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=min(workers, 32),
                                                 thread_name_prefix=flow.name)
    token = _plain_pool.set(pool)
    try:
        result = flow.fn(*args, **kwargs)
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        _plain_pool.reset(token)
    pool.shutdown(wait=True)
    return result


class PlainFuture:
    """What our flows ask of a Prefect future (wait, result, state), for a plain run's task."""

    def __init__(self, inner: concurrent.futures.Future):
        self.inner = inner

    def wait(self) -> None:
        concurrent.futures.wait([self.inner])

    def result(self):
        return self.inner.result()

    @property
    def state(self) -> "PlainFuture":
        return self

    def is_completed(self) -> bool:
        return self.inner.done() and not self.inner.cancelled() and self.inner.exception() is None


def run_logger() -> logging.Logger | logging.LoggerAdapter:
    """The flow run's logger; in a plain run, one that prints as Prefect's console would (its level:
    PREFECT_LOGGING_HANDLERS_CONSOLE_FLOW_RUNS_LEVEL, which the CLI raises unless -v)."""
    if not _plain.get():
        from prefect import get_run_logger
        from prefect.exceptions import MissingContextError
        try:
            return get_run_logger()
        except MissingContextError:
            pass
    logger = logging.getLogger("mlperf.run")
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s | %(levelname)-7s | %(message)s", "%H:%M:%S"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
    # each call: the level of the command running now (an earlier quiet command's does not stick)
    logger.handlers[0].setLevel(os.environ.get("PREFECT_LOGGING_HANDLERS_CONSOLE_FLOW_RUNS_LEVEL", "INFO").upper())
    return logger


def _with_retries(task, args, kwargs):
    """The task's function, tried again as the task declares (retries, delays, condition)."""
    name = _run_name(task, args, kwargs)
    started = time.perf_counter()
    for attempt in range(task.retries + 1):
        try:
            result = task.fn(*args, **kwargs)
        except Exception as exc:
            if attempt == task.retries or not _retry_wanted(task, exc):
                run_logger().info("%s failed after %.2f s: %s", name, time.perf_counter() - started, exc)
                raise
            delay = _delay(task.retry_delay_seconds, attempt)
            run_logger().info("%s failed (%s); retry %d/%d in %.1f s", name, exc, attempt + 1, task.retries, delay)
            time.sleep(delay)
        else:
            run_logger().info("%s finished in %.2f s", name, time.perf_counter() - started)
            return result


def _retry_wanted(task, exc: BaseException) -> bool:
    condition = task.retry_condition_fn
    if condition is None:
        return True
    if not isinstance(condition, RetryWhen):
        raise TypeError(f"{task.name}: a plain run needs its retry condition as a RetryWhen")
    return condition.predicate(exc)


def _delay(delays, attempt: int) -> float:
    if not delays:
        return 0.0
    if isinstance(delays, (int, float)):
        return float(delays)
    return float(delays[min(attempt, len(delays) - 1)])


def _run_name(task, args, kwargs) -> str:
    template = task.task_run_name
    if not isinstance(template, str):
        return task.name
    try:
        bound = inspect.signature(task.fn).bind(*args, **kwargs)
        return template.format(**bound.arguments)
    except (TypeError, KeyError, IndexError):
        return task.name
