"""The search: one Optuna study per kernel and target, asked and told in batches.

Each study proposes ``batch`` trials at a time (the first is the default pipeline, enqueued),
the new candidates among them are evaluated in parallel by a runner, and the results are told
back **in trial order** once the whole batch is back. With a fixed seed, a study's proposals
then depend only on its own earlier results, never on which worker finished first, on the
number of workers, or on Ray vs the process pool: the same command gives the same trials and
the same best pipeline. Studies of different kernels run side by side, so a worker pool (or a
cluster) stays busy with many kernels even though each study waits for its batch.

Budget: the number of distinct candidates a study evaluates (the baseline included). A trial
that proposes a candidate the study already has costs nothing and is told the known result;
a study stops at its budget, when every candidate of its space was tried, or when its sampler
proposes only known candidates for :data:`STALL_TRIALS` trials in a row. Failing candidates
are told ``inf`` (the worst value, so the sampler learns to avoid them) and never chosen.

Samplers: ``tpe`` (default; one categorical parameter per switch and per knob), ``random``
(the same parameters), ``grid`` (one parameter whose values are the space's distinct
pipelines: every candidate exactly once, in an order fixed by the seed).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import optuna

from tilesched import __version__
from tilesched.ir import parse_text
from tilesched.transforms.pass_base import program_facts
from tilesched.tune.evaluate import Evaluation, KernelSpec, prepare
from tilesched.tune.results import ResultsStore
from tilesched.tune.space import GRID_LIMIT, Candidate, SearchSpace

SAMPLERS = ("tpe", "grid", "random")
STALL_TRIALS = 200


@dataclass(frozen=True)
class Settings:
    """What defines a search besides its space (all part of its reproducibility)."""

    budget: int = 64
    sampler: str = "tpe"
    seed: int = 0
    batch: int = 8


@dataclass
class Trial:
    """A distinct candidate of one search: the trial that first proposed it and its result."""

    number: int
    candidate: Candidate
    outcome: Evaluation | None = None  # None while it is being evaluated


@dataclass
class Job:
    """One kernel on one target: its space, its study and what it has tried."""

    kernel: KernelSpec
    space: SearchSpace
    fingerprint: str
    study: Any = None
    size: int | None = None  # distinct candidates in the space, when enumerable
    grid: list[str] | None = None  # the grid sampler's values: every distinct pipeline
    trials: dict[str, Trial] = field(default_factory=dict)  # by pipeline, first proposal order
    batch: list[tuple[Any, str]] = field(default_factory=list)  # (optuna trial, pipeline)
    stalled: int = 0
    stop_reason: str = ""

    @property
    def label(self) -> str:
        return f"{self.kernel.name} on {self.kernel.target_name}"

    def waiting(self) -> bool:
        return any(self.trials[p].outcome is None for _, p in self.batch)


def make_job(kernel: KernelSpec) -> Job:
    """The job of a kernel: checked (bad input is a located error), its space and fingerprint
    (the space, the kernel text, the target model, the arguments and tilesched's version)."""
    target = prepare(kernel)
    space = SearchSpace(target, program_facts(parse_text(kernel.text, kernel.name)))
    return Job(kernel, space, space.fingerprint(kernel.key, __version__))


Listener = Callable[[Job, Trial, bool], None]  # (job, trial, came from the results file)


def start_jobs(jobs: list[Job], settings: Settings) -> None:
    """Create each job's study (and count its space's candidates, when enumerable)."""
    for job in jobs:
        if job.study is None:
            _start(job, settings)


def run_search(jobs: list[Job], settings: Settings, runner, store: ResultsStore,
               listener: Listener | None = None) -> None:
    """Search every job to its end; new evaluations go to ``store`` (saved after each batch and
    when interrupted, Ctrl-C included)."""
    notify = listener or (lambda job, trial, cached: None)
    start_jobs(jobs, settings)
    try:
        for job in jobs:
            _next_batch(job, settings, runner, store, notify)
        while any(job.batch for job in jobs):
            (job, pipeline), outcome = runner.next_done()
            trial = job.trials[pipeline]
            trial.outcome = outcome
            store.add(job.kernel.name, job.kernel.target_name, trial.number,
                      trial.candidate.options(job.space), job.fingerprint, outcome)
            notify(job, trial, False)
            if not job.waiting():
                _tell(job)
                store.save()
                _next_batch(job, settings, runner, store, notify)
    finally:
        store.save()


def _start(job: Job, settings: Settings) -> None:
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    if job.space.size_bound() <= GRID_LIMIT:
        job.size = len(job.space.candidates())
    if settings.sampler == "grid":
        if job.size is None:
            raise ValueError(f"{job.label}: the space has {job.space.size_bound()} choices, too "
                             "many for --sampler grid; use tpe")
        job.grid = [c.pipeline for c in job.space.candidates()]
        sampler = _BatchGridSampler({"pipeline": job.grid}, seed=settings.seed)
        baseline = {"pipeline": job.space.baseline().pipeline}
    elif settings.sampler == "random":
        sampler = optuna.samplers.RandomSampler(seed=settings.seed)
        baseline = job.space.baseline_choice()
    else:
        sampler = optuna.samplers.TPESampler(seed=settings.seed)
        baseline = job.space.baseline_choice()
    job.study = optuna.create_study(direction="minimize", sampler=sampler)
    job.study.enqueue_trial(baseline)


def _next_batch(job: Job, settings: Settings, runner, store: ResultsStore, notify) -> None:
    """Ask the study for its next batch; submit new candidates, take known ones from the
    results file. A batch needing no evaluation is told at once."""
    while True:
        job.batch = []
        if _finished(job, settings):
            return
        new = 0
        while len(job.batch) < settings.batch and len(job.trials) < settings.budget:
            trial = job.study.ask()
            candidate = _propose(job, trial)
            pipeline = candidate.pipeline
            job.batch.append((trial, pipeline))
            if pipeline in job.trials:
                continue
            new += 1
            entry = job.trials[pipeline] = Trial(trial.number, candidate)
            known = store.lookup(job.fingerprint, pipeline)
            if known is not None:
                entry.outcome = known
                notify(job, entry, True)
            else:
                runner.submit((job, pipeline), job.kernel, pipeline)
            if job.size is not None and len(job.trials) >= job.size:
                break
        job.stalled = 0 if new else job.stalled + len(job.batch)
        if job.waiting():
            return
        _tell(job)


def _propose(job: Job, trial) -> Candidate:
    if job.grid is not None:
        return job.space.candidate_of(trial.suggest_categorical("pipeline", job.grid))
    choice = {name: trial.suggest_categorical(name, list(values))
              for name, values in job.space.parameters().items()}
    return job.space.candidate(choice)


def _tell(job: Job) -> None:
    """Tell the batch's results in trial order (never in completion order)."""
    for trial, pipeline in job.batch:
        outcome = job.trials[pipeline].outcome
        value = float(outcome.cycles) if outcome.ok else math.inf
        job.study.tell(trial, value)
    job.batch = []


def _finished(job: Job, settings: Settings) -> bool:
    if len(job.trials) >= settings.budget:
        job.stop_reason = "budget"
    elif job.size is not None and len(job.trials) >= job.size:
        job.stop_reason = "space exhausted"
    elif job.stalled >= STALL_TRIALS:
        job.stop_reason = f"no new candidate in {job.stalled} trials"
    return bool(job.stop_reason)


class _BatchGridSampler(optuna.samplers.GridSampler):
    """Optuna's GridSampler for ask/tell batches. The search stops a grid study itself (it knows
    the number of candidates), so ``after_trial`` does not call ``Study.stop``, which only works
    inside ``Study.optimize`` and would raise from ``tell``."""

    def after_trial(self, study, trial, state, values) -> None:
        return None
