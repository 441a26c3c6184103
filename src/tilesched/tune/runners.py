"""Where candidates are evaluated: in this process, a local process pool, or Ray.

Every runner has the same small interface: :meth:`submit` a (key, kernel, pipeline) task,
:meth:`next_done` blocks until some task finishes and returns its key and
:class:`~tilesched.tune.evaluate.Evaluation`, :meth:`close`. Tasks finish in any order; the
search never depends on that order (it tells the sampler its results in trial order), which is
why the three runners give the same results.

- :class:`SerialRunner` (``--jobs 1``): evaluates in this process, one at a time.
- :class:`PoolRunner` (``--jobs N``): a ``concurrent.futures`` process pool started through a
  fork server that has imported tilesched once, one numerics thread per worker; workers ignore
  Ctrl-C, which the search handles.
- :class:`RayRunner` (``--ray [ADDRESS]``): tasks on a Ray cluster, one CPU each. Without an
  address it starts a local Ray with ``--jobs`` CPUs (no dashboard, no usage statistics);
  with one it joins that cluster, whose nodes must have tilesched installed. Ray is optional
  (``pip install 'tilesched[ray]'``).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections import deque
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from tilesched.diagnostics import TileschedError
from tilesched.tune.evaluate import Evaluation, KernelSpec, evaluate

RAY_MISSING = ("--ray needs Ray, an optional extra of tilesched: pip install 'tilesched[ray]' "
               "(or run without --ray: a local process pool, --jobs N)")


class SerialRunner:
    """Evaluate in this process, in submission order."""

    workers = 1

    def __init__(self) -> None:
        self._queue: deque[tuple[Any, KernelSpec, str]] = deque()

    def submit(self, key: Any, kernel: KernelSpec, pipeline: str) -> None:
        self._queue.append((key, kernel, pipeline))

    def next_done(self) -> tuple[Any, Evaluation]:
        key, kernel, pipeline = self._queue.popleft()
        return key, evaluate(kernel, pipeline)

    def close(self) -> None:
        self._queue.clear()


class PoolRunner:
    """A local process pool of ``jobs`` workers."""

    def __init__(self, jobs: int) -> None:
        self.workers = jobs
        _one_numerics_thread()  # before the fork server imports numpy
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(["tilesched.tune.evaluate"])
        self._pool = ProcessPoolExecutor(jobs, mp_context=context, initializer=_ignore_sigint)
        self._pending: dict[Future, Any] = {}

    def submit(self, key: Any, kernel: KernelSpec, pipeline: str) -> None:
        self._pending[self._pool.submit(evaluate, kernel, pipeline)] = key

    def next_done(self) -> tuple[Any, Evaluation]:
        done, _ = wait(self._pending, return_when=FIRST_COMPLETED)
        future = next(iter(done))
        key = self._pending.pop(future)
        try:
            return key, future.result()
        except BrokenProcessPool as err:
            raise TileschedError(f"a worker process died ({err}); finished trials are kept, "
                                 "rerun to resume") from None

    def close(self) -> None:
        self._pool.shutdown(wait=True, cancel_futures=True)


def _one_numerics_thread() -> None:
    """One evaluation per worker: the parallelism is the workers'. A numpy BLAS with a thread
    per core in every worker oversubscribes the cores (2 workers on 2 cores ran no faster than
    1). Worker processes started from now on inherit this; a user's own setting wins."""
    for variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(variable, "1")


def _ignore_sigint() -> None:
    """Workers leave Ctrl-C to the search, which saves what finished and stops them."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class RayRunner:
    """Tasks on Ray: a local runtime of ``jobs`` CPUs, or the cluster at ``address``."""

    def __init__(self, address: str | None, jobs: int) -> None:
        try:
            import ray
        except ImportError:
            raise TileschedError(RAY_MISSING) from None
        import logging

        os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no network traffic of its own
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                   "logging_level": logging.ERROR}
        try:
            if address:
                ray.init(address=address, **options)
            else:
                _one_numerics_thread()
                ray.init(num_cpus=jobs, **options)
        except (ConnectionError, RuntimeError, ValueError) as err:
            where = f"the Ray cluster at {address}" if address else "a local Ray runtime"
            raise TileschedError(f"cannot start or join {where}: {err}") from None
        self._ray = ray
        self._task = ray.remote(num_cpus=1, max_retries=1)(evaluate)
        self.workers = max(1, int(ray.cluster_resources().get("CPU", 1)))
        self._pending: dict[Any, Any] = {}

    def submit(self, key: Any, kernel: KernelSpec, pipeline: str) -> None:
        self._pending[self._task.remote(kernel, pipeline)] = key

    def next_done(self) -> tuple[Any, Evaluation]:
        ready, _ = self._ray.wait(list(self._pending), num_returns=1)
        key = self._pending.pop(ready[0])
        try:
            return key, self._ray.get(ready[0])
        except self._ray.exceptions.RayError as err:
            raise TileschedError(f"a Ray task failed ({type(err).__name__}: "
                                 f"{str(err).splitlines()[0]}); finished trials are kept, "
                                 "rerun to resume") from None

    def close(self) -> None:
        for ref in self._pending:
            self._ray.cancel(ref, force=True)
        self._pending.clear()
        self._ray.shutdown()


def make_runner(jobs: int, ray: str | None) -> SerialRunner | PoolRunner | RayRunner:
    """The runner for ``--jobs`` / ``--ray`` (``ray`` is None, ``"local"`` or an address)."""
    if ray is not None:
        return RayRunner(None if ray == "local" else ray, jobs)
    return SerialRunner() if jobs == 1 else PoolRunner(jobs)
