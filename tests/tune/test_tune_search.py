"""The search: deterministic for a seed whatever the runner, resumable from its results file,
interrupted without losing finished trials, and never choosing a failing candidate."""

from __future__ import annotations

import dataclasses
import sys
import types

import pytest
from xdsl.dialects.builtin import ModuleOp

from tilesched.examples import example_path
from tilesched.ir.sync import SyncOp
from tilesched.transforms import registry
from tilesched.transforms.pass_base import TilePass, option
from tilesched.tune.evaluate import KernelSpec, evaluate
from tilesched.tune.results import ResultsStore
from tilesched.tune.runners import PoolRunner, SerialRunner
from tilesched.tune.search import Settings, make_job, run_search
from tilesched.tune.summary import summarize

SOFTMAX = str(example_path("ascend_softmax"))


def tune(paths: list[str], settings: Settings, results: str | None = None, runner=None,
         listener=None):
    store = ResultsStore(results)
    jobs = [make_job(KernelSpec.load(p, "ascend-a2")) for p in paths]
    for job in jobs:
        store.check_space(job.kernel.name, job.kernel.target_name, job.fingerprint)
    run_search(jobs, settings, runner or SerialRunner(), store, listener)
    return [summarize(job) for job in jobs], store


def trials_of(summary) -> list[tuple]:
    return [(t.number, t.outcome.pipeline, t.outcome.verdict, t.outcome.cycles)
            for t in summary.trials]


@dataclasses.dataclass(frozen=True)
class DropSyncPass(TilePass):
    """Test-only: removes every sync op, so the program is faster, and wrong."""

    name = "drop-sync"
    role = "optional"
    families = frozenset({"flags"})
    keep_first: bool = option(False, "keep the first sync op", tune=(False, True))

    def run(self, module: ModuleOp, ctx) -> None:
        syncs = [op for op in module.walk() if isinstance(op, SyncOp)]
        for op in syncs[1 if self.keep_first else 0:]:
            op.detach()
            op.erase()


@pytest.fixture
def drop_sync_registered(monkeypatch):
    module = types.ModuleType("tilesched_test_drop_sync")
    module.PASS = DropSyncPass
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setitem(registry.PASS_MODULES, "drop-sync", module.__name__)  # after insert-sync


def test_failing_candidates_are_recorded_and_never_chosen(drop_sync_registered, tmp_path):
    results = tmp_path / "trials.csv"
    [summary], store = tune([SOFTMAX], Settings(budget=16, seed=1),
                            str(results))
    dropped = [t for t in summary.trials if "drop-sync" in t.outcome.pipeline]
    assert dropped and all(not t.outcome.ok and t.outcome.cycles is None for t in dropped)
    assert {t.outcome.verdict for t in dropped} <= {"race", "violation", "not-equivalent"}
    assert summary.best is not None and "drop-sync" not in summary.best.outcome.pipeline
    assert summary.failures["race"] > 0
    # without its sync the program would be faster: the verdict, not the cycles, excluded it
    kernel = KernelSpec.load(SOFTMAX, "ascend-a2")
    assert evaluate(kernel, "insert-sync,drop-sync").verdict == "race"
    rows = ResultsStore(str(results)).rows
    assert len(rows) == len(summary.trials)
    assert {r["verdict"] for r in rows if "drop-sync" in r["pipeline"]} == \
        {t.outcome.verdict for t in dropped}
    assert all(r["reason"] for r in rows if r["verdict"] != "ok")


def test_same_seed_same_trials_with_one_or_two_workers():
    settings = Settings(budget=12, seed=3, batch=4)
    [serial], _ = tune([SOFTMAX], settings)
    [pooled], _ = tune([SOFTMAX], settings, runner=PoolRunner(2))
    assert trials_of(serial) == trials_of(pooled)
    assert serial.best.outcome.pipeline == pooled.best.outcome.pipeline
    [other], _ = tune([SOFTMAX], Settings(budget=12, seed=4, batch=4))
    assert trials_of(other) != trials_of(serial)  # the seed matters


def test_a_rerun_resumes_from_the_results_file(tmp_path):
    results = str(tmp_path / "trials.parquet")
    [first], store = tune([SOFTMAX], Settings(budget=6, seed=2), results)
    assert store.added == 6
    [again], store = tune([SOFTMAX], Settings(budget=6, seed=2), results)
    assert store.added == 0 and trials_of(again) == trials_of(first)  # nothing re-evaluated
    [more], store = tune([SOFTMAX], Settings(budget=10, seed=2), results)
    assert store.added == 4
    [fresh], _ = tune([SOFTMAX], Settings(budget=10, seed=2))
    assert trials_of(more) == trials_of(fresh)  # as if never stopped


def test_an_interrupted_search_keeps_every_finished_trial(tmp_path):
    results = str(tmp_path / "trials.csv")
    finished = []

    def interrupt_after_five(job, trial, cached):
        finished.append(trial.outcome.pipeline)
        if len(finished) == 5:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        tune([SOFTMAX], Settings(budget=12, seed=5), results, listener=interrupt_after_five)
    kept = ResultsStore(results).rows
    assert [r["pipeline"] for r in kept] == finished
    [resumed], store = tune([SOFTMAX], Settings(budget=12, seed=5), results)
    assert store.added == 12 - 5
    [fresh], _ = tune([SOFTMAX], Settings(budget=12, seed=5))
    assert trials_of(resumed) == trials_of(fresh)


FLAT = """builtin.module {
  func.func @f(%a: memref<64x64xf16, "GM">, %b: memref<64x64xf16, "GM">) {
    %t = memref.alloc() : memref<64x64xf16, "UB">
    %u = memref.alloc() : memref<64x64xf16, "UB">
    tile.load %a, %t : memref<64x64xf16, "GM">, memref<64x64xf16, "UB">
    tile.exp %t, %u : memref<64x64xf16, "UB">, memref<64x64xf16, "UB">
    tile.store %u, %b : memref<64x64xf16, "UB">, memref<64x64xf16, "GM">
    func.return
  }
}
"""


def test_grid_tries_every_candidate_once_then_stops(tmp_path):
    path = tmp_path / "flat.mlir"
    path.write_text(FLAT)
    kernel = KernelSpec.load(str(path), "ascend-a2")
    job = make_job(kernel)
    size = len(job.space.candidates())
    run_search([job], Settings(budget=10_000, sampler="grid"), SerialRunner(), ResultsStore(None))
    summary = summarize(job)
    assert len(summary.trials) == size and summary.stop_reason == "space exhausted"
    assert summary.trials[0].outcome.pipeline == job.space.baseline().pipeline
    assert summary.best.outcome.cycles == min(t.outcome.cycles for t in summary.trials
                                              if t.outcome.ok)
