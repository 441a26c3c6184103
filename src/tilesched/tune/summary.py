"""What one search found for one kernel on one target: baseline, best, every trial."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from tilesched.target.loader import parse_target
from tilesched.target.model import microseconds
from tilesched.tune.search import Job, Trial


@dataclass
class Summary:
    """The outcome of a job: the best correct candidate (None if no candidate is correct)."""

    kernel: str
    target: str
    baseline: Trial
    best: Trial | None
    trials: list[Trial]  # distinct candidates, in the order they were first proposed
    stop_reason: str
    frequency_hz: float | None = None  # the target's clock, when it gives one

    def time_us(self, cycles: int | None) -> float | None:
        """``cycles`` in microseconds at the target's clock (None without one)."""
        return None if cycles is None else microseconds(cycles, self.frequency_hz)

    @property
    def failures(self) -> Counter:
        """Verdict -> count, over the failing trials."""
        return Counter(t.outcome.verdict for t in self.trials if not t.outcome.ok)

    @property
    def speedup(self) -> float | None:
        """Baseline cycles / best cycles (None without a correct baseline and best)."""
        if self.best is None or not self.baseline.outcome.ok:
            return None
        return self.baseline.outcome.cycles / self.best.outcome.cycles

    def best_so_far(self) -> list[int | None]:
        """After each trial (in order), the fewest cycles of a correct candidate so far."""
        running, best = [], None
        for trial in self.trials:
            if trial.outcome.ok and (best is None or trial.outcome.cycles < best):
                best = trial.outcome.cycles
            running.append(best)
        return running


def summarize(job: Job) -> Summary:
    """The job's summary; ties between equally fast candidates go to the earliest trial."""
    trials = sorted(job.trials.values(), key=lambda t: t.number)
    correct = [t for t in trials if t.outcome is not None and t.outcome.ok]
    best = min(correct, key=lambda t: (t.outcome.cycles, t.number)) if correct else None
    baseline = job.trials[job.space.baseline().pipeline]
    clock = parse_target(job.kernel.target_text, job.kernel.target_name).frequency_hz
    return Summary(job.kernel.name, job.kernel.target_name, baseline, best,
                   [t for t in trials if t.outcome is not None], job.stop_reason, clock)
