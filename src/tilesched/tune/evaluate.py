"""Evaluate one candidate pipeline on one kernel: what ``opt -p``, ``sim`` and ``equiv`` would say.

The steps, cheapest first, stop at the first failure (the candidate is then recorded with its
verdict and reason, and never chosen):

1. run the passes (``pass-error``: a pass refused this program with these options; ``crash``:
   a pass raised something else, a tilesched bug worth reporting);
2. print the result and parse it back, verify it against the target (``invalid-ir``): the
   pipeline string, given to ``tilesched opt -p``, must produce a file ``sim`` reads;
3. simulate it on the target (``race``, ``deadlock``, ``violation``), as ``tilesched sim`` does:
   its cycles and bound are the candidate's;
4. run it on seeded inputs with its simulated concurrency and compare with the kernel run in
   program order (``not-equivalent``), as ``tilesched equiv`` does.

A passing candidate is ``ok`` with its cycles and lower bound. Everything a worker needs
travels in a :class:`KernelSpec` (texts, not paths), so a Ray worker on another machine can
evaluate it; each worker process keeps the parsed target and the reference trace per kernel.
"""

from __future__ import annotations

import hashlib
import time
import traceback
from dataclasses import dataclass
from functools import lru_cache

from tilesched.analysis.fusion_annotations import annotation_errors
from tilesched.analysis.last_use_check import last_use_errors
from tilesched.diagnostics import TileschedError, TileschedErrors
from tilesched.input_files import read_text
from tilesched.ir import parse_text, print_module, verify_module
from tilesched.sim.functional import Memory, equivalent_to, run_reference
from tilesched.sim.lowering.lower import lower_module
from tilesched.sim.run import simulate
from tilesched.sim.trace import TraceError
from tilesched.target.loader import (
    BUILTIN_DIR,
    MAX_TARGET_BYTES,
    builtin_target_names,
    load_target,
    parse_target,
)
from tilesched.target.model import Target
from tilesched.transforms.pass_base import TileContext
from tilesched.transforms.registry import parse_pass_pipeline, run_pipeline

OK = "ok"
VERDICTS = (OK, "pass-error", "crash", "invalid-ir", "race", "deadlock", "violation",
            "not-equivalent")


@dataclass(frozen=True)
class KernelSpec:
    """One kernel on one target, as text: what a worker needs to evaluate candidates."""

    name: str  # the kernel file as given on the command line
    text: str
    target_name: str
    target_text: str  # the target's TOML
    args: tuple[tuple[str, int | float], ...] = ()  # scalar function arguments (--arg)

    @classmethod
    def load(cls, path: str, target: str, args: dict[str, int | float] | None = None,
             text: str | None = None) -> KernelSpec:
        """Read a kernel file (``-``: standard input; ``text``: already read) and a target (a
        built-in name or a .toml path); unreadable files and unknown targets are located
        errors."""
        if text is None:
            text = read_text(path, "kernel")
        load_target(target)  # validates, located
        toml = BUILTIN_DIR / f"{target}.toml" if target in builtin_target_names() else target
        return cls("<stdin>" if path == "-" else path, text, target,
                   read_text(str(toml), "target file", MAX_TARGET_BYTES), tuple(sorted((args or {}).items())))

    @property
    def key(self) -> str:
        """Identity of the evaluation inputs (kernel text, target model, arguments)."""
        data = "\0".join([self.text, self.target_text, repr(self.args)])
        return hashlib.sha256(data.encode()).hexdigest()[:16]


@dataclass
class Evaluation:
    """The outcome of one candidate."""

    pipeline: str
    verdict: str
    cycles: int | None = None
    bound: int | None = None
    reason: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.verdict == OK


def prepare(kernel: KernelSpec) -> Target:
    """Parse the kernel and its target, verify the kernel and lower it (bad input raises a
    located :class:`TileschedError`); returns the target."""
    return _prepared(kernel)[0]


@lru_cache(maxsize=64)
def _prepared(kernel: KernelSpec) -> tuple[Target, Memory]:
    """The target and the kernel run in program order on the seeded inputs (once per worker)."""
    target = parse_target(kernel.target_text, kernel.target_name)
    module = parse_text(kernel.text, kernel.name)
    verify_module(module, target)
    if errors := annotation_errors(module) or last_use_errors(module, target):  # as every command
        raise TileschedErrors(errors)
    try:
        reference = lower_module(module, target, dict(kernel.args))
    except TraceError as err:
        raise TileschedError(str(err), kernel.name) from None
    return target, run_reference(reference)


def evaluate(kernel: KernelSpec, pipeline: str) -> Evaluation:
    """Run ``pipeline`` on the kernel and judge the result (see the module docstring)."""
    start = time.perf_counter()
    try:
        outcome = _judge(kernel, pipeline)
    except Exception as err:  # a bug in a pass or the simulator: recorded, the search goes on
        outcome = Evaluation(pipeline, "crash", reason=_crash_text(err))
    outcome.seconds = time.perf_counter() - start
    return outcome


def _judge(kernel: KernelSpec, pipeline: str) -> Evaluation:
    target, reference = _prepared(kernel)
    module = parse_text(kernel.text, kernel.name)
    try:
        run_pipeline(module, parse_pass_pipeline(pipeline), TileContext(target))
    except TileschedError as err:
        return Evaluation(pipeline, "pass-error", reason=_first_line(str(err)))
    try:
        output = parse_text(print_module(module), f"{kernel.name} after {pipeline}")
        verify_module(output, target)
        candidate = lower_module(output, target, dict(kernel.args), strict_args=False)
    except (TileschedError, TraceError) as err:
        return Evaluation(pipeline, "invalid-ir", reason=_first_line(str(err)))
    result = simulate(candidate)
    judged = Evaluation(pipeline, OK, result.cycles, result.bound)
    if result.races:
        race = result.races[0]
        judged.verdict = "race"
        judged.reason = f"{len(result.races)} race(s), first on {race.buffer}"
    elif result.deadlock is not None:
        judged.verdict, judged.reason = "deadlock", str(result.deadlock[0])
    elif result.violations:
        first = result.violations[0]
        judged.verdict, judged.reason = "violation", f"{first.kind}: {first.detail}"
    else:  # only a correct program is run on data (the costliest check)
        verdict = equivalent_to(reference, candidate, check_races=False)
        if not verdict.equivalent:
            judged.verdict = "not-equivalent"
            judged.reason = "; ".join(verdict.problems + [
                f"{m.buffer}: {m.elements} element(s) differ" for m in verdict.mismatches])
    if not judged.ok:
        judged.cycles = None
    return judged


def _crash_text(err: Exception) -> str:
    """``Type: message (file.py:line)`` where the exception was raised."""
    where = traceback.extract_tb(err.__traceback__)[-1]
    return f"{type(err).__name__}: {err} ({where.filename.rsplit('/', 1)[-1]}:{where.lineno})"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else text
